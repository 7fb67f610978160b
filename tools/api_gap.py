"""Lists the public names of TensorFlow (and its Keras) that eagerkernel lacks, namespace by
namespace: the map of what TensorFlow code may reach for and not find.

TensorFlow is not a dependency: install it in a separate environment (``python -m venv
/tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu``), dump its names there, then
compare here::

    /tmp/tfvenv/bin/python tools/api_gap.py dump /tmp/api_tf.json    # TensorFlow's names
    .venv/bin/python tools/api_gap.py compare /tmp/api_tf.json        # what eagerkernel lacks

``dump`` writes ``{namespace: [public names]}`` for the namespaces in `NAMESPACES`, read with
``dir``; ``compare`` checks each with ``hasattr`` on eagerkernel's namespace of the same path
(module ``__getattr__`` fallbacks count as present) and prints the missing names and their
count. Both import their framework as ``tf``; a namespace the framework lacks is skipped.
"""

from __future__ import annotations

import argparse
import json
import sys

# TensorFlow's namespaces, as attribute paths from the top-level module.
NAMESPACES = [
    "",
    "math",
    "nn",
    "linalg",
    "random",
    "strings",
    "image",
    "io",
    "data.Dataset",
    "data.experimental",
    "keras.layers",
    "keras.losses",
    "keras.metrics",
    "keras.optimizers",
    "keras.callbacks",
    "keras.activations",
    "keras.initializers",
    "keras.utils",
    "keras.ops",
    "keras.Model",
    "keras.layers.Layer",
    "Variable",
    "Tensor",
    "GradientTape",
    "train",
    "config",
    "debugging",
    "sparse",
    "ragged",
    "signal",
    "experimental.numpy",
    "distribute",
    "summary",
]


def resolve(root, path: str):
    """``root`` followed along the dotted ``path`` ("" is ``root``), or None."""
    obj = root
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def dump(out: str) -> None:
    import tensorflow as tf

    names = {}
    for path in NAMESPACES:
        obj = resolve(tf, path)
        if obj is not None:
            names[path] = sorted(n for n in dir(obj) if not n.startswith("_"))
    with open(out, "w") as f:
        json.dump(names, f, indent=0)
    print(f"{sum(map(len, names.values()))} names in {len(names)} namespaces -> {out}")


def compare(path_json: str) -> int:
    import eagerkernel as tf

    with open(path_json) as f:
        theirs = json.load(f)
    total = 0
    for path, names in theirs.items():
        ours = resolve(tf, path)
        missing = names if ours is None else [n for n in names if not _has(ours, n)]
        total += len(missing)
        if missing:
            print(f"tf.{path or '<top>'} ({len(missing)} of {len(names)}): {', '.join(missing)}")
    print(f"missing: {total}")
    return total


def _has(obj, name: str) -> bool:
    try:
        return hasattr(obj, name)
    except Exception:  # a property that raises on the class
        return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("dump", help="write TensorFlow's names (run with TensorFlow installed)")
    sub.choices["dump"].add_argument("out")
    sub.add_parser("compare", help="print the names eagerkernel lacks")
    sub.choices["compare"].add_argument("names")
    args = parser.parse_args(argv)
    if args.command == "dump":
        dump(args.out)
    else:
        compare(args.names)
    return 0


if __name__ == "__main__":
    sys.exit(main())
