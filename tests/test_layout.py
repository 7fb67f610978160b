"""The package's layout rules (issue 13 §4, SPEC §1): every module under ``eagerkernel/`` has at
most 800 lines, and no module uses another module's private names (a leading underscore):
neither ``from x import _name``, nor ``module._name`` on an imported eagerkernel module, nor
an import from a package-private module (``ops/_core.py``) outside its package.

Allowed: the C extensions (``_kernels``, ``_dispatch``, ``_tape``, ``_philox``), ``__future__``
and dunder names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import eagerkernel

MAX_LINES = 800
ALLOWED = {"_kernels", "_dispatch", "_tape", "_philox", "__future__"}
SKIPPED: tuple = ()  # directories under the package root not checked
ROOT = Path(eagerkernel.__file__).parent


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__") and name not in ALLOWED


def _module_name(path: Path, root: Path) -> list:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _resolve(path: Path, root: Path, node: ast.ImportFrom) -> list:
    """The absolute dotted name (as parts) a ``from ... import`` names, relative or not."""
    if not node.level:
        return (node.module or "").split(".")
    here = _module_name(path, root)
    package = here if path.name == "__init__.py" else here[:-1]
    base = package[: len(package) - (node.level - 1)]
    return base + (node.module.split(".") if node.module else [])


def violations(root: Path) -> list:
    """``"file:line: what"`` for every module over `MAX_LINES` lines and every use of
    another eagerkernel module's private name under ``root`` (the package directory)."""
    top = root.name
    modules = {
        tuple(_module_name(p, root)) for p in root.rglob("*.py") if "__pycache__" not in p.parts
    }
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        if rel.parts[1] in SKIPPED:
            continue
        source = path.read_text(encoding="utf-8")
        n_lines = len(source.splitlines())
        if n_lines > MAX_LINES:
            found.append(f"{rel}: {n_lines} lines (at most {MAX_LINES})")
        tree = ast.parse(source)
        package = _module_name(path, root)
        if path.name != "__init__.py":
            package = package[:-1]
        aliases = {}  # local name -> an eagerkernel module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(path, root, node)
                if not target or target[0] != top:
                    continue
                private = [i for i, part in enumerate(target) if _private(part)]
                for i in private:  # a package-private module, imported from outside it
                    if package[:i] != target[:i]:
                        found.append(f"{rel}:{node.lineno}: imports {'.'.join(target)}")
                for alias in node.names:
                    if _private(alias.name):
                        found.append(
                            f"{rel}:{node.lineno}: imports {alias.name} from {'.'.join(target)}"
                        )
                    elif (*target, alias.name) in modules:
                        aliases[alias.asname or alias.name] = ".".join((*target, alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == top and alias.asname:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _private(node.attr)
            ):
                found.append(f"{rel}:{node.lineno}: uses {aliases[node.value.id]}.{node.attr}")
    return found


def test_no_long_module_and_no_private_name_across_modules():
    found = violations(ROOT)
    assert not found, "layout rules broken:\n" + "\n".join(found)


def test_the_checker_finds_each_kind_of_violation(tmp_path):
    pkg = tmp_path / "eagerkernel"
    (pkg / "ops").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "ops" / "__init__.py").write_text("")
    (pkg / "ops" / "_core.py").write_text("def helper():\n    pass\n")
    (pkg / "ops" / "math_ops.py").write_text(
        "from ._core import helper\nfrom . import _kernels\n\n\ndef _on():\n    pass\n"
    )
    (pkg / "segment.py").write_text(
        "from __future__ import annotations\n"
        "from .ops.math_ops import (\n    _on,\n)\n"
        "from .ops._core import helper\n"
        "from .ops import math_ops as m\n"
        "x = m._on\ny = m.__name__\n"
    )
    (pkg / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (pkg / "magics").mkdir()
    (pkg / "magics" / "views.py").write_text("from ..ops.math_ops import _on\n")
    assert violations(pkg) == [
        f"eagerkernel/long.py: {MAX_LINES + 1} lines (at most {MAX_LINES})",
        "eagerkernel/magics/views.py:1: imports _on from eagerkernel.ops.math_ops",
        "eagerkernel/segment.py:2: imports _on from eagerkernel.ops.math_ops",
        "eagerkernel/segment.py:5: imports eagerkernel.ops._core",
        "eagerkernel/segment.py:7: uses eagerkernel.ops.math_ops._on",
    ]
