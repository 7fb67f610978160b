"""Control flow with TensorFlow 2's eager semantics: `cond`, `case`, `switch_case`,
`while_loop`, `scan`, `foldl`, `foldr` and `vectorized_map` (the graph-only names: see
`graph_compat.py`).

Every function here runs the chosen branch or the loop body as ordinary Python: the ops they
run go through the dispatcher one by one, so a `GradientTape` records them and gradients flow
through every branch taken and every iteration run, as in TensorFlow's eager mode. Under
`ek.function`, reading a predicate (``bool(pred)``) is a guard like any tensor-to-Python
conversion: the traced program replays while the predicates take the same values and traces
a new branch when one changes (see `runtime/function/`), so the result is always the eager
one.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import nest
from ..core.composite import CompositeTensor
from ..core.errors import InvalidArgumentError, OutOfRangeError
from ..core.tensor import Tensor, convert_to_tensor

__all__ = [
    "case",
    "cond",
    "foldl",
    "foldr",
    "scan",
    "switch_case",
    "vectorized_map",
    "while_loop",
]

_tuple = builtins.tuple  # ek.tuple (TensorFlow's op, graph_compat.py) shares the name


def _truth(pred, op: str, arg: str = "pred") -> bool:
    """The Python truth value of a scalar predicate (a guard under `ek.function`)."""
    if isinstance(pred, Tensor):
        if pred._value.size != 1:
            raise ValueError(
                f"{op}: {arg} must be a scalar (one element), got a tensor of shape "
                f"{_tuple(pred._value.shape)}: the truth value of more than one element is "
                "ambiguous."
            )
        return builtins.bool(pred)
    if isinstance(pred, np.ndarray) and pred.size != 1:
        raise ValueError(
            f"{op}: {arg} must be a scalar (one element), got an array of shape {pred.shape}."
        )
    return builtins.bool(pred)


def _same_structure(expected, got, op: str, what: str) -> None:
    """ValueError/TypeError (TensorFlow's `nest.assert_same_structure`) unless ``got`` nests
    as ``expected`` does (sequence types compared, leaves not)."""

    def kind(x):
        if isinstance(x, dict):
            return "dict"
        if isinstance(x, (list, _tuple)):
            return "sequence"
        return None

    def walk(a, b):
        ka, kb = kind(a), kind(b)
        if ka != kb or (ka and len(a) != len(b)):
            raise ValueError(
                f"{op}: {what} don't have the same nested structure.\n\nFirst structure: "
                f"{_describe(expected)}\n\nSecond structure: {_describe(got)}"
            )
        if ka == "dict":
            if sorted(a) != sorted(b):
                raise ValueError(
                    f"{op}: {what} don't have the same nested structure: dict keys "
                    f"{sorted(a)} and {sorted(b)}."
                )
            for k in a:
                walk(a[k], b[k])
        elif ka == "sequence":
            if type(a) is not type(b) and not (_plain(a) and _plain(b)):
                raise TypeError(
                    f"{op}: {what} don't have the same sequence type: {type(a).__name__} "
                    f"and {type(b).__name__}."
                )
            for x, y in zip(a, b):
                walk(x, y)

    walk(expected, got)


def _plain(x) -> bool:
    return type(x) in (list, _tuple)


def _describe(structure) -> str:
    return repr(nest.pack_sequence_as(structure, ["."] * len(nest.flatten(structure))))


def _to_tensors(structure):
    """Leaves converted to Tensors (Variables are read; composite tensors and TensorArrays
    stay as they are), as TensorFlow returns a loop's variables."""
    from ..tensor_array import TensorArray

    def convert(x):
        if isinstance(x, (CompositeTensor, TensorArray)):
            return x
        if isinstance(x, Tensor) and type(x) is Tensor:
            return x
        return convert_to_tensor(x)

    return nest.map_structure(convert, structure)


def _stop(structure):
    from ..autodiff import stop_gradient

    return nest.map_structure(lambda x: stop_gradient(x) if isinstance(x, Tensor) else x, structure)


# -- conditionals ---------------------------------------------------------------------------


def cond(pred, true_fn=None, false_fn=None, name=None):
    """Runs ``true_fn()`` if ``pred`` is true, else ``false_fn()`` (follows TF 2's `tf.cond`).

    Only the chosen branch runs (eagerly), and its result is returned as it is: the two
    branches may return different structures, as in TensorFlow's eager mode.

    Args:
        pred: a scalar (one-element) Tensor, NumPy value or Python value; its truth value picks
            the branch (a guard under `ek.function`).
        true_fn, false_fn: callables without arguments.
        name: unused, as TensorFlow's eager mode.

    Returns:
        What the chosen branch returns.

    Raises:
        TypeError: ``true_fn`` or ``false_fn`` missing or not callable (TensorFlow's messages).
        ValueError: ``pred`` has more than one element.

    >>> x, y = ek.constant(2.0), ek.constant(5.0)
    >>> float(ek.cond(x < y, lambda: ek.add(x, y), lambda: ek.square(y)))
    7.0
    """
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError(f"cond: 'true_fn' must be callable, got {true_fn!r:.60}.")
    if not callable(false_fn):
        raise TypeError(f"cond: 'false_fn' must be callable, got {false_fn!r:.60}.")
    return true_fn() if _truth(pred, "cond") else false_fn()


def _unpack_singleton(x):
    if isinstance(x, (list, _tuple)) and len(x) == 1:
        return x[0]
    return x


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """Runs the function of the first true predicate (follows TF 2's `tf.case`).

    Args:
        pred_fn_pairs: a list or tuple of ``(pred, fn)`` pairs: ``pred`` a scalar bool Tensor,
            ``fn`` a callable without arguments. A dict is accepted only with
            ``exclusive=True`` (its order is not a priority order), as in TensorFlow.
        default: the callable run when no predicate is true. Without it, the last pair's
            ``fn`` is the default, and its predicate must be true when no other is.
        exclusive: True checks that at most one predicate is true.
        strict: False (TensorFlow's default) unpacks a one-element list or tuple result.
        name: unused, as TensorFlow's eager mode.

    ``exclusive`` and ``strict`` behave as TensorFlow documents them; TensorFlow 2.21's own
    eager path skips both (no exclusivity check, no unpacking).

    Raises:
        TypeError: ``pred_fn_pairs`` not a list/tuple/dict, an entry not a 2-tuple, a
            predicate that is not a bool Tensor, a function that is not callable.
        ValueError: a dict with ``exclusive=False``.
        InvalidArgumentError: ``exclusive=True`` and several predicates true; no predicate
            true and no ``default``.

    >>> x = ek.constant(3)
    >>> int(ek.case([(x < 0, lambda: ek.constant(-1)), (x > 2, lambda: ek.constant(1))],
    ...             default=lambda: ek.constant(0)))
    1
    """
    op = "case"
    if not isinstance(pred_fn_pairs, (list, _tuple, dict)):
        raise TypeError(
            f"{op}: 'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}"
        )
    if isinstance(pred_fn_pairs, dict):
        if not exclusive:
            raise ValueError(
                f"{op}: Unordered dictionaries are not supported for the 'pred_fn_pairs' "
                "argument when `exclusive=False` and eager mode is enabled."
            )
        pred_fn_pairs = list(pred_fn_pairs.items())
    preds, fns = [], []
    for pair in pred_fn_pairs:
        if not isinstance(pair, _tuple) or len(pair) != 2:
            raise TypeError(
                f"{op}: Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}."
            )
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError(f"{op}: pred must be a Tensor, got: {pred!r:.60}")
        if pred.dtype.name != "bool":
            raise TypeError(f"{op}: pred must be Tensor of type bool, got {pred.dtype.name}.")
        if not callable(fn):
            raise TypeError(f"{op}: fn for pred {pred!r:.60} must be callable.")
        preds.append(pred)
        fns.append(fn)
    if default is not None and not callable(default):
        raise TypeError(f"{op}: default must be callable, got {default!r:.60}.")
    if not preds:
        if default is None:
            raise ValueError(f"{op}: give at least one (pred, fn) pair or a default.")
        return default() if strict else _unpack_singleton(default())
    values = [_truth(p, op) for p in preds]
    if default is None and not any(values):
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: Input error: None of conditions evaluated as True: "
            f"{', '.join(map(str, values))} (give a default, or make the last predicate true "
            "when no other is)",
        )
    if exclusive and sum(values) > 1:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: Input error: exclusive=True and more than one predicate evaluated to True: "
            f"Values: {np.asarray(values, dtype=np.int32)}",
        )
    chosen = next((fn for fn, v in zip(fns, values) if v), default)
    result = chosen()
    return result if strict else _unpack_singleton(result)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Runs the branch whose key is ``branch_index`` (follows `tf.switch_case`).

    Args:
        branch_index: a scalar integer Tensor (a Python int raises TypeError, as in TF).
        branch_fns: a list of callables (keys 0, 1, ...), a list of ``(int, callable)``
            pairs, or a dict from int to callable; the keys must be ``0 .. len - 1``.
        default: run for an index outside the keys; without it, the branch of the largest
            key is (TensorFlow's rule, negative indices included).
        name: unused, as TensorFlow's eager mode.

    Raises:
        TypeError: a ``branch_index`` that is not an integer Tensor, ``branch_fns`` of the
            wrong type, a key that is not an int, a branch that is not callable.
        ValueError: no branches, or keys that are not ``0 .. len - 1``, or a non-scalar index.

    >>> branches = [lambda: ek.constant(17), lambda: ek.constant(31)]
    >>> int(ek.switch_case(ek.constant(1), branches, default=lambda: ek.constant(-1)))
    31
    >>> int(ek.switch_case(ek.constant(7), branches, default=lambda: ek.constant(-1)))
    -1
    """
    op = "switch_case"
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"{op}: 'branch_index' must be a Tensor, got {type(branch_index)}")
    if branch_index._value.dtype.kind not in "iu":
        raise TypeError(
            f"{op}: 'branch_index' must be an integer Tensor, got {branch_index.dtype.name}."
        )
    if not branch_fns:
        raise ValueError(f"{op}: Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, _tuple, dict)):
        raise TypeError(f"{op}: 'branch_fns' must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, _tuple) or len(pair) != 2:
            raise TypeError(f"{op}: Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int) or isinstance(key, builtins.bool):
            raise TypeError(f"{op}: key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"{op}: fn for key {key} must be callable.")
    keys = [k for k, _ in pairs]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(
            f"{op}: branch indices (keys) must form contiguous range of [0 to {len(keys)}) but "
            f"found {{{','.join(map(str, sorted(keys)))}}}"
        )
    if default is not None and not callable(default):
        raise TypeError(f"{op}: default must be callable, got {default!r:.60}.")
    actions = [fn for _, fn in sorted(pairs, key=operator.itemgetter(0))]
    if default is not None:
        actions.append(default)
    if branch_index._value.size != 1:
        raise ValueError(
            f"{op}: branch_index must be a scalar, got shape {_tuple(branch_index._value.shape)}."
        )
    i = int(branch_index)
    if i < 0 or i >= len(actions):
        i = len(actions) - 1
    return actions[i]()


# -- loops ----------------------------------------------------------------------------------


def _invariant_pairs(loop_vars, invariants, op: str) -> list:
    """``(loop variable, shape invariant)`` pairs: ``invariants`` nests as ``loop_vars`` down
    to each variable, where it holds a shape (a list of ints and Nones) or None."""
    if isinstance(loop_vars, dict):
        if not isinstance(invariants, dict) or sorted(invariants) != sorted(loop_vars):
            raise ValueError(
                f"{op}: shape_invariants must have the structure of loop_vars, got "
                f"{invariants!r:.80} for {_describe(loop_vars)}."
            )
        return [
            p for k in sorted(loop_vars) for p in _invariant_pairs(loop_vars[k], invariants[k], op)
        ]
    if isinstance(loop_vars, (list, _tuple)):
        if not isinstance(invariants, (list, _tuple)) or len(invariants) != len(loop_vars):
            raise ValueError(
                f"{op}: shape_invariants must have the structure of loop_vars, got "
                f"{invariants!r:.80} for {_describe(loop_vars)}."
            )
        return [p for v, i in zip(loop_vars, invariants) for p in _invariant_pairs(v, i, op)]
    return [(loop_vars, invariants)]


def _check_invariants(loop_vars, invariants, op: str) -> None:
    for v, inv in _invariant_pairs(loop_vars, invariants, op):
        if inv is None or not isinstance(v, Tensor):
            continue
        dims = [None if d is None or d == -1 else d for d in list(inv)]
        shape = _tuple(v._value.shape)
        if len(dims) != len(shape) or any(
            d is not None and int(d) != n for d, n in zip(dims, shape)
        ):
            raise ValueError(
                f"{op}: a loop variable has shape {shape} after an iteration, which is not "
                f"compatible with its shape invariant {[d for d in dims]}. Give a less "
                "specific shape invariant (None for a dimension that changes)."
            )


def while_loop(
    cond,
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    maximum_iterations=None,
    name=None,
):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` is true (follows
    TF 2's `tf.while_loop`).

    The loop runs eagerly in Python, so a tape records every iteration and gradients flow to
    the initial ``loop_vars`` and to the variables ``body`` reads.

    Args:
        cond: a callable of the loop variables returning a scalar bool (a guard under
            `ek.function`).
        body: a callable of the loop variables returning new ones with the same nested
            structure (a lone value is accepted for one loop variable).
        loop_vars: a (possibly nested) tuple, namedtuple or list of Tensors, NumPy arrays,
            Python numbers, RaggedTensors or TensorArrays.
        shape_invariants: None (shapes may change, as in TensorFlow's eager mode), or the
            structure of ``loop_vars`` with a shape (None dimensions allowed) or None per
            loop variable: each iteration's shapes are checked against it.
        parallel_iterations: a positive int; iterations run one after another eagerly.
        back_prop: False stops gradients at the result (deprecated in TensorFlow).
        swap_memory: TensorFlow's GPU-to-host swapping of a graph loop's memory; eager
            execution frees each iteration's tensors as it goes, so there is nothing to swap.
        maximum_iterations: optional: the loop stops after this many iterations.
        name: unused, as TensorFlow's eager mode.

    Returns:
        The loop variables after the last iteration, with the structure ``body`` returns
        (leaves converted to Tensors).

    Raises:
        TypeError: ``cond``/``body`` not callable, ``loop_vars`` not a list or tuple,
            ``parallel_iterations`` not a positive int.
        ValueError: empty ``loop_vars``, a non-scalar ``maximum_iterations``, a ``body``
            result whose structure differs from ``loop_vars``', a shape breaking its invariant.

    >>> i, total = ek.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i),
    ...                          (ek.constant(0), ek.constant(0)))
    >>> int(i), int(total)
    (5, 10)
    """
    op = "while_loop"
    if not callable(cond):
        raise TypeError(f"{op}: 'cond' must be callable, got {cond!r:.60}.")
    if not callable(body):
        raise TypeError(f"{op}: 'body' must be callable, got {body!r:.60}.")
    if (
        not isinstance(parallel_iterations, (int, np.integer))
        or isinstance(parallel_iterations, builtins.bool)
        or parallel_iterations < 1
    ):
        raise TypeError(f"{op}: 'parallel_iterations' must be a positive integer.")
    if not isinstance(loop_vars, (list, _tuple)):
        raise TypeError(
            f"{op}: loop_vars must be a (possibly nested) tuple, namedtuple or list, got "
            f"{type(loop_vars).__name__}; write [x] for one loop variable."
        )
    if not loop_vars:
        raise ValueError(f"{op}: 'loop_vars' must be provided.")
    limit = None
    if maximum_iterations is not None:
        m = maximum_iterations
        shape = np.shape(m._value if isinstance(m, Tensor) else m)
        if shape != ():
            raise ValueError(
                f"{op}: 'maximum_iterations' must be a scalar. Received shape: {shape}"
            )
        limit = int(m)
    if shape_invariants is not None:
        _check_invariants(loop_vars, shape_invariants, op)
    single = len(loop_vars) == 1
    count = 0
    while (limit is None or count < limit) and _truth(cond(*loop_vars), op, "cond's result"):
        new = body(*loop_vars)
        if single and not (isinstance(new, (list, _tuple)) and len(new) == 1):
            new = type(loop_vars)([new]) if _plain(loop_vars) else (new,)
        if not isinstance(new, (list, _tuple)):
            raise ValueError(
                f"{op}: body must return the loop variables' structure "
                f"{_describe(loop_vars)}, got {type(new).__name__} {new!r:.60}."
            )
        _same_structure(list(loop_vars), list(new), op, "loop_vars and body's result")
        if shape_invariants is not None:
            _check_invariants(new, shape_invariants, op)
        loop_vars = new
        count += 1
    result = _to_tensors(loop_vars)
    return result if back_prop else _stop(result)


def _convert_elems(elems, op: str) -> list:
    flat = [
        x if isinstance(x, (Tensor, CompositeTensor)) else convert_to_tensor(x)
        for x in nest.flatten(elems)
    ]
    if not flat:
        raise ValueError(f"{op}: elems must hold at least one tensor, got {elems!r:.60}.")
    for x in flat:
        if isinstance(x, Tensor) and x._value.ndim == 0:
            raise ValueError(
                f"{op}: elems must be 1+ dimensional Tensors, not scalars. Received: {x!r:.80}"
            )
    from .functional_ops import leading_rows

    n = leading_rows(flat[0])
    if any(leading_rows(x) != n for x in flat[1:]):
        raise ValueError(
            f"{op}: all components of elems must have the same first dimension, got "
            f"{[leading_rows(x) for x in flat]}."
        )
    return flat


def _element(elems, flat: list, i: int):
    from .functional_ops import row_at

    return nest.pack_sequence_as(elems, [row_at(x, i) for x in flat])


def _check_accumulator(previous, new, op: str):
    if isinstance(previous, (list, _tuple, dict)):
        _same_structure(previous, new, op, "the accumulator and fn's result")


def _no_elements(op: str) -> OutOfRangeError:
    return OutOfRangeError(
        None,
        op,
        f"{op}: Tried to read from index 0 but array size is: 0 (elems has no elements and no "
        "initializer was given: there is no initial accumulator).",
    )


def _fold(fn, elems, initializer, back_prop, reverse: bool, op: str):
    if not callable(fn):
        raise TypeError(f"{op}: fn must be callable, got {fn!r:.60}.")
    flat = _convert_elems(elems, op)
    from .functional_ops import leading_rows

    n = leading_rows(flat[0])
    order = list(range(n))[::-1] if reverse else list(range(n))
    if initializer is None:
        if n == 0:
            raise _no_elements(op)
        acc = _element(elems, flat, order[0])
        order = order[1:]
    else:
        acc = initializer
    for i in order:
        new = fn(acc, _element(elems, flat, i))
        _check_accumulator(acc, new, op)
        acc = new
    result = _to_tensors(acc)
    return result if back_prop else _stop(result)


def foldl(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
):
    """Folds ``elems`` from the first element: ``acc = fn(acc, elems[i])`` (follows `tf.foldl`).

    Args:
        fn: ``fn(accumulator, element)`` returning the new accumulator (same structure as
            the initializer's).
        elems: a Tensor or (nested) structure of Tensors unstacked on axis 0 (same lengths).
        initializer: the first accumulator; default: the first element (which ``fn`` then
            does not see again).
        parallel_iterations, swap_memory: accepted as in TensorFlow; they have no meaning for
            an eager loop (elements run one after another, tensors are freed as they go).
        back_prop: False stops gradients at the result.
        name: unused.

    Raises:
        ValueError: scalar or unequal-length ``elems``; ``fn`` returning a different
            structure. TypeError: ``fn`` not callable.
        OutOfRangeError: no elements and no ``initializer`` (TensorFlow's error).

    >>> int(ek.foldl(lambda a, x: a + x, ek.constant([1, 2, 3, 4, 5, 6])))
    21
    """
    return _fold(fn, elems, initializer, back_prop, False, "foldl")


def foldr(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
):
    """Folds ``elems`` from the last element: ``acc = fn(acc, elems[i])`` for decreasing ``i``
    (follows `tf.foldr`); arguments and errors as `foldl`.

    >>> ek.foldr(lambda a, x: ek.concat([a, x], 0), ek.constant([[1], [2], [3]])).numpy()
    array([3, 2, 1], dtype=int32)
    """
    return _fold(fn, elems, initializer, back_prop, True, "foldr")


def scan(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    reverse=False,
    name=None,
):
    """The accumulators of a fold, stacked: ``out[i] = fn(out[i - 1], elems[i])`` (follows
    `tf.scan`).

    Args:
        fn: ``fn(accumulator, element)`` returning the new accumulator, with the structure of
            ``initializer`` (or of ``elems`` when there is none).
        elems: a Tensor or (nested) structure of Tensors unstacked on axis 0 (same lengths).
        initializer: the accumulator before the first element; default: the first element,
            which is then the first row of the result as it is.
        reverse: True scans from the last element; ``out[i]`` still belongs to ``elems[i]``.
        infer_shape: True (the default) requires every accumulator to keep one shape, as
            they are stacked; False is accepted only when they do.
        parallel_iterations, swap_memory: accepted as in TensorFlow; no meaning for an eager
            loop (elements run one after another, tensors are freed as they go).
        back_prop: False stops gradients at the result.
        name: unused.

    Returns:
        For each accumulator leaf, a Tensor with one row per element.

    Raises:
        ValueError: scalar or unequal-length ``elems``; ``fn`` changing the structure or a
            leaf's shape. TypeError: ``fn`` not callable, or a leaf changing dtype.
        OutOfRangeError: no elements and no ``initializer`` (TensorFlow's error).

    >>> ek.scan(lambda a, x: a + x, ek.constant([1, 2, 3, 4, 5, 6])).numpy()
    array([ 1,  3,  6, 10, 15, 21], dtype=int32)
    >>> ek.scan(lambda a, x: a + x, ek.constant([1, 2, 3]), reverse=True).numpy()
    array([6, 5, 3], dtype=int32)
    """
    op = "scan"
    if not callable(fn):
        raise TypeError(f"{op}: fn must be callable, got {fn!r:.60}.")
    flat = _convert_elems(elems, op)
    from .functional_ops import leading_rows

    n = leading_rows(flat[0])
    order = list(range(n))[::-1] if reverse else list(range(n))
    outputs = []
    if initializer is None:
        if n == 0:
            raise _no_elements(op)
        acc = _element(elems, flat, order[0])
        outputs.append(acc)
        order = order[1:]
        structure = elems
    else:
        acc = initializer
        structure = initializer
    for i in order:
        new = fn(acc, _element(elems, flat, i))
        if isinstance(structure, (list, _tuple, dict)) or isinstance(new, (list, _tuple, dict)):
            _same_structure(structure, new, op, "the accumulator and fn's result")
        acc = new
        outputs.append(acc)
    if reverse:
        outputs.reverse()
    if not outputs:  # an initializer and no elements: zero rows of the initializer's shape
        from .creation import zeros

        return nest.map_structure(
            lambda a: zeros((0, *np.shape(_as_tensor(a)._value)), _as_tensor(a).dtype),
            initializer,
        )
    leaves = [nest.flatten(o) for o in outputs]
    stacked = [_stack_rows([row[j] for row in leaves], op) for j in range(len(leaves[0]))]
    result = nest.pack_sequence_as(structure, stacked)
    return result if back_prop else _stop(result)


def _as_tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def _stack_rows(rows: list, op: str) -> Tensor:
    from .array_ops import stack

    tensors = [_as_tensor(r) for r in rows]
    dts = {t.dtype.name for t in tensors}
    if len(dts) != 1:
        raise TypeError(f"{op}: fn's results change dtype across elements: {sorted(dts)}.")
    shapes = {_tuple(t._value.shape) for t in tensors}
    if len(shapes) != 1:
        raise ValueError(
            f"{op}: fn's results change shape across elements: {sorted(shapes)}; they are "
            "stacked into one Tensor."
        )
    return stack(tensors, axis=0)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """Applies ``fn`` to each row of ``elems`` and stacks the results (follows
    `tf.vectorized_map`).

    TensorFlow vectorizes ``fn`` into batched ops (its "pfor"); eagerkernel runs ``fn`` once
    per row instead, which is what TensorFlow itself falls back to
    (``fallback_to_while_loop``): the values and gradients are the same, the speed is a
    Python loop's. The output dtypes and structure are those ``fn`` returns.

    Args:
        fn: called with one row of ``elems`` (a structure of rows for a nested ``elems``).
        elems: a Tensor or (nested) structure of Tensors with the same first dimension.
        fallback_to_while_loop, warn: accepted; the loop is always used, without a warning.

    Raises:
        ValueError: scalar or unequal-length ``elems``, results of different shapes.

    >>> ek.vectorized_map(lambda r: ek.reduce_sum(r * r), ek.constant([[1., 2.], [3., 4.]])).numpy()
    array([ 5., 25.], dtype=float32)
    """
    op = "vectorized_map"
    if not callable(fn):
        raise TypeError(f"{op}: fn must be callable, got {fn!r:.60}.")
    flat = _convert_elems(elems, op)
    from .functional_ops import leading_rows

    n = leading_rows(flat[0])
    if n == 0:
        return _no_rows(fn, elems, flat, op)
    outputs = [fn(_element(elems, flat, i)) for i in range(n)]
    for o in outputs[1:]:
        if isinstance(outputs[0], (list, _tuple, dict)) or isinstance(o, (list, _tuple, dict)):
            _same_structure(outputs[0], o, op, "fn's results")
    leaves = [nest.flatten(o) for o in outputs]
    stacked = [_stack_rows([row[j] for row in leaves], op) for j in range(len(leaves[0]))]
    return nest.pack_sequence_as(outputs[0], stacked)


def _no_rows(fn, elems, flat: list, op: str):
    """`vectorized_map` over no rows: TensorFlow traces ``fn`` on a symbolic row, so its
    results have ``fn``'s structure, dtypes and row shapes with 0 rows; ``fn`` of a row of
    zeros gives them here."""
    from .creation import zeros

    if not all(isinstance(x, Tensor) for x in flat):
        raise ValueError(f"{op}: elems has no rows; the results' shape cannot be known.")
    sample = fn(nest.pack_sequence_as(elems, [zeros(x.shape[1:], x.dtype) for x in flat]))

    def empty(t):
        t = convert_to_tensor(t)
        return zeros((0, *t._value.shape), t.dtype)

    return nest.map_structure(empty, sample)
