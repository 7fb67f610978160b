"""Graph-optimizer switches (`ek.config.optimizer`, follows `tf.config.optimizer`).

TensorFlow hands these to Grappler, which rewrites a `tf.function`'s graph. Programs here are
already folded and pruned when traced (see `eagerkernel.runtime.function`), so the options are
recorded and reported back as TensorFlow reports them, and one changes what a trace records:
``debug_stripper`` (Grappler's pass that turns ``CheckNumerics`` into an identity inside
functions; eager calls still check).

>>> ek.config.optimizer.set_experimental_options({"constant_folding": False})
>>> options = ek.config.optimizer.get_experimental_options()
>>> options["constant_folding"], options["disable_meta_optimizer"]
(False, False)
>>> ek.config.optimizer.set_experimental_options({"constant_folding": True})
"""

from __future__ import annotations

__all__ = ["get_experimental_options", "get_jit", "set_experimental_options", "set_jit"]

# TensorFlow's RewriterConfig fields, in the order `get_experimental_options` lists them:
# on/off toggles (listed only once set) and the two booleans it always lists.
_FIELDS = (
    "layout_optimizer",
    "constant_folding",
    "shape_optimization",
    "remapping",
    "arithmetic_optimization",
    "dependency_optimization",
    "loop_optimization",
    "function_optimization",
    "debug_stripper",
    "disable_model_pruning",
    "scoped_allocator_optimization",
    "pin_to_host_optimization",
    "implementation_selector",
    "auto_mixed_precision",
    "use_plugin_optimizers",
    "disable_meta_optimizer",
    "auto_mixed_precision_onednn_bfloat16",
    "auto_mixed_precision_mkl",
)
_ALWAYS = ("disable_model_pruning", "disable_meta_optimizer")

_options: dict = {}
_jit = [False]


def set_experimental_options(options: dict) -> None:
    """Updates the optimizer options with ``options`` (follows
    `tf.config.optimizer.set_experimental_options`).

    Keys are TensorFlow's RewriterConfig names (``"constant_folding"``, ``"debug_stripper"``,
    ...) with bool values, and ``"min_graph_nodes"`` with an int. The options given replace
    those of the same key; the others stay (``{}`` changes nothing), and an unknown key is
    ignored, as in TensorFlow.
    """
    _options.update(options)


def get_experimental_options() -> dict:
    """The optimizer options in effect (follows `tf.config.optimizer.get_experimental_options`):
    every known toggle that was set, ``disable_model_pruning`` and ``disable_meta_optimizer``
    (False unless set), then ``min_graph_nodes`` when nonzero, in TensorFlow's order."""
    out = {}
    for key in _FIELDS:
        value = _options.get(key)
        if key in _ALWAYS or value is not None:
            out[key] = bool(value)
    nodes = _options.get("min_graph_nodes")
    if nodes:
        out["min_graph_nodes"] = int(nodes)
    return out


def stripping_debug_ops() -> bool:
    """Whether ``debug_stripper`` is on: `check_numerics` traced into a function is then an
    identity (Grappler's DebugStripper)."""
    return bool(_options.get("debug_stripper"))


def set_jit(enabled) -> None:
    """Records the XLA auto-clustering switch (follows `tf.config.optimizer.set_jit`):
    ``True`` or ``"autoclustering"`` turns it on, anything else off. There is no XLA here:
    functions run the same programs either way."""
    _jit[0] = enabled in (True, "autoclustering")


def get_jit() -> str:
    """``"autoclustering"`` after ``set_jit(True)``, else ``""`` (follows
    `tf.config.optimizer.get_jit`)."""
    return "autoclustering" if _jit[0] else ""
