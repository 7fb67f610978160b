"""Runs the ``>>>`` examples of TensorFlow's (or Keras's) own docstrings on eagerkernel and
on TensorFlow, and lists the examples whose outputs differ: TensorFlow documents behaviour in
these examples, so each difference is a divergence to look at.

TensorFlow is not a dependency: run the TensorFlow side in a separate environment
(``python -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu``)::

    /tmp/tfvenv/bin/python tools/docstring_examples.py dump /tmp/tf_docs.json          # TF's
    /tmp/tfvenv/bin/python tools/docstring_examples.py dump --keras /tmp/keras_docs.json
    /tmp/tfvenv/bin/python tools/docstring_examples.py run tf /tmp/tf_docs.json /tmp/out_tf.json
    .venv/bin/python tools/docstring_examples.py run ek /tmp/tf_docs.json /tmp/out_ek.json
    .venv/bin/python tools/docstring_examples.py compare /tmp/out_tf.json /tmp/out_ek.json

``dump`` writes ``{api name: docstring}`` for the public functions, classes and methods that
have examples (``tf.math.add``, ``tf.RaggedTensor.merge_dims``; ``keras.ops.rearrange``).
``run`` executes each docstring's examples in order in a fresh namespace (``tf``, ``np``,
``keras``, ``ops``, ``layers``; on eagerkernel, ``import tensorflow`` and ``import keras``
give eagerkernel's modules) and records each example's printed output, or its exception.
``compare`` prints, per docstring, the first example whose outputs differ after the
differences eagerkernel specifies away (``<tf.Tensor: ...>`` is ``<Tensor: ...>``,
``tf.float32`` is ``float32``) and float noise (1e-3 relative); random draws differ by design.
"""

from __future__ import annotations

import argparse
import contextlib
import doctest
import inspect
import io
import json
import re
import signal
import sys
import types
import warnings

TF_NAMESPACES = (
    "", "math", "nn", "linalg", "strings", "image", "signal", "random", "bitwise", "sparse",
    "ragged", "dtypes", "experimental.numpy", "io", "debugging", "config", "data",
    "data.experimental", "sets", "audio", "train", "summary", "lookup", "autodiff", "nest",
    "errors", "saved_model", "distribute", "test", "compat.v1", "queue", "quantization",
)  # fmt: skip
KERAS_NAMESPACES = (
    "ops", "ops.nn", "ops.numpy", "ops.image", "ops.linalg", "layers", "losses", "metrics",
    "activations", "initializers", "regularizers", "constraints", "optimizers",
    "optimizers.schedules", "callbacks", "utils", "random", "saving", "models", "backend",
    "preprocessing", "tree", "config",
)  # fmt: skip
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")
TIMEOUT = 10  # seconds per example


def dump(path: str, keras: bool) -> None:
    """Writes the docstrings with examples of the installed TensorFlow (or Keras)."""
    if keras:
        import keras as root

        prefix, namespaces = "keras.", KERAS_NAMESPACES
    else:
        import tensorflow as root

        prefix, namespaces = "tf.", TF_NAMESPACES
    docs: dict = {}
    seen: set = set()

    def add(name: str, obj) -> None:
        doc = inspect.getdoc(obj)
        if doc and ">>>" in doc and id(obj) not in seen:
            seen.add(id(obj))
            docs[name] = doc

    for space in namespaces:
        module = root
        for part in filter(None, space.split(".")):
            module = getattr(module, part, None)
        if module is None:
            continue
        base = prefix + (space + "." if space else "")
        for attr in dir(module):
            obj = None if attr.startswith("_") else getattr(module, attr, None)
            if obj is None or isinstance(obj, types.ModuleType):
                continue
            add(base + attr, obj)
            if inspect.isclass(obj):
                for name, member in vars(obj).items():
                    if name.startswith("_") and name not in ("__init__", "__call__"):
                        continue
                    member = member.fget if isinstance(member, property) else member
                    add(f"{base}{attr}.{name}", getattr(member, "__func__", member))
    with open(path, "w") as f:
        json.dump(docs, f, indent=0)
    print(f"{len(docs)} docstrings with examples -> {path}")


def _frameworks(which: str) -> dict:
    import numpy as np

    if which == "tf":
        import keras
        import tensorflow as tf
    else:
        import eagerkernel as tf
        from eagerkernel import keras

        sys.modules["tensorflow"] = tf  # the examples' own imports get eagerkernel
        sys.modules["keras"] = sys.modules["keras.src"] = keras
        for name in ("ops", "layers", "losses", "metrics", "optimizers", "utils", "tree"):
            sys.modules[f"keras.{name}"] = sys.modules[f"keras.src.{name}"] = getattr(keras, name)
    return {"tf": tf, "np": np, "keras": keras, "ops": keras.ops, "layers": keras.layers}


def run(which: str, docs_path: str, out_path: str, prefix: str = "") -> None:
    """Executes the examples; writes ``{api name: [[status, output], ...]}``."""
    import numpy as np

    warnings.filterwarnings("ignore")
    names = _frameworks(which)
    with open(docs_path) as f:
        docs = json.load(f)

    def alarm(*_):
        raise TimeoutError(f"example ran over {TIMEOUT} s")

    signal.signal(signal.SIGALRM, alarm)
    results: dict = {}
    for api, doc in docs.items():
        if not api.startswith(prefix):
            continue
        try:
            examples = doctest.DocTestParser().get_examples(doc)
        except ValueError:
            continue
        namespace = dict(names)
        np.random.seed(0)
        outputs = []
        for example in examples:
            buffer = io.StringIO()
            signal.alarm(TIMEOUT)
            try:
                with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
                    try:
                        value = eval(compile(example.source, "<example>", "eval"), namespace)
                        if value is not None:
                            print(repr(value))
                    except SyntaxError:
                        exec(compile(example.source, "<example>", "exec"), namespace)
                outputs.append(["ok", buffer.getvalue()[:3000]])
            except BaseException as e:  # an example may raise anything
                outputs.append(["raised", f"{type(e).__name__}: {str(e)[:300]}"])
            finally:
                signal.alarm(0)
        results[api] = {"source": [e.source for e in examples], "output": outputs}
    with open(out_path, "w") as f:
        json.dump(results, f)
    print(f"{len(results)} docstrings run -> {out_path}")


def _normalized(text: str) -> str:
    text = re.sub(r"\btf\.(?=[A-Z])", "", text).replace("<tf.", "<")
    text = re.sub(r"\b(?:tf|ek)\.(?=[a-z])", "", text)
    text = re.sub(r"at 0x[0-9a-f]+", "at 0x", text).replace("EagerTensor", "Tensor")
    return " ".join(text.split())


def same_output(a: str, b: str) -> bool:
    """Whether two printed outputs agree, reprs normalized and numbers to 1e-3 relative."""
    import numpy as np

    a, b = _normalized(a), _normalized(b)
    if a == b:
        return True
    if NUMBER.sub("#", a).replace(" ", "") != NUMBER.sub("#", b).replace(" ", ""):
        return False
    x, y = ([float(v) for v in NUMBER.findall(t)] for t in (a, b))
    return len(x) == len(y) and np.allclose(x, y, rtol=1e-3, atol=1e-5, equal_nan=True)


def compare(reference_path: str, other_path: str) -> int:
    """Prints the first differing example of each docstring; returns how many differ."""
    with open(reference_path) as f:
        reference = json.load(f)
    with open(other_path) as f:
        other = json.load(f)
    differ = 0
    for api, ref in reference.items():
        if api not in other:
            continue
        pairs = zip(ref["output"], other[api]["output"])
        for i, ((status_a, out_a), (status_b, out_b)) in enumerate(pairs):
            if status_a != status_b or not same_output(out_a, out_b):
                differ += 1
                source = ref["source"][i].strip().replace("\n", " | ")[:200]
                print(f"## {api} [{i}] {source}")
                print(f"   reference: {status_a} {_normalized(out_a)[:300]}")
                print(f"   other:     {status_b} {_normalized(out_b)[:300]}")
                break
    print(f"{differ} of {len(reference)} docstrings differ", file=sys.stderr)
    return differ


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="docstrings with examples (run with TensorFlow installed)")
    d.add_argument("out")
    d.add_argument("--keras", action="store_true", help="Keras's instead of TensorFlow's")
    r = sub.add_parser("run", help="run the examples on tf or ek")
    r.add_argument("framework", choices=("tf", "ek"))
    r.add_argument("docs")
    r.add_argument("out")
    r.add_argument("--prefix", default="", help="only the API names starting with this")
    c = sub.add_parser("compare", help="examples whose outputs differ")
    c.add_argument("reference")
    c.add_argument("other")
    args = parser.parse_args(argv)
    if args.command == "dump":
        dump(args.out, args.keras)
    elif args.command == "run":
        run(args.framework, args.docs, args.out, args.prefix)
    else:
        compare(args.reference, args.other)


if __name__ == "__main__":
    main()
