"""Graph functions: `function` traces a Python function once per input signature and replays
the recorded program on later calls (follows `tf.function`).

How a call runs:

1. The arguments give a *signature*: the dtype, shape and device of every tensor, the
   identity of every Variable, the value of every other Python argument (and the device scope).
2. The first call with a signature *traces*: it runs the Python function on the real inputs,
   eagerly, while a `Tracer` (a `Recorder`) writes down every primitive the dispatcher runs
   (the VJPs of a `GradientTape` inside too: they are primitives), every stateful op
   (`dispatch.stateful`: variable assignments, optimizer updates, random draws, metric
   updates, `print`), and every *guard*: each place where a traced tensor's value became a
   Python value (``bool()``, ``int()``, ``float()``, ``.numpy()``, ``__index__``, so Python
   ``if``/``while`` on tensors). The call's result is the eager result.
3. The trace becomes a `Program`: constants folded (an op whose inputs are all constants is
   its traced value), dead ops dropped, and the rest compiled into straight-line Python over
   raw arrays (one local per value, deleted after its last use, so memory is freed as early as
   eagerly and optimizers can still update variables in place). No Tensor, dtype check or
   dispatch per op. One pattern is fused there: ``reduce_sum(a * b)`` over every axis, whose
   product nothing else reads, becomes one pass without the product array, added in NumPy's
   pairwise order (`kernels.mul_sum`), so the value is still the eager one, bit for bit.
4. Later calls replay the program. A guard recomputes its value; if it differs from the
   trace's, the replay is abandoned (a program that changed state before that guard puts it
   back: variables and the random generator) and the call runs eagerly once more while being
   traced: a new *branch*, replayed from then on for calls whose guards take it. So a call's
   result is always the eager result; there is no AutoGraph and no ``tf.cond`` to write.
   Effects that cannot be put back (a ``numpy_function`` callback, ``print``, an iterator's
   next element) are not repeated: the attempt after a miss gets their results (`effects`).

A first trace that created Variables is followed by a second run of the Python code (a
`VerifyingTracer`), as TensorFlow traces such a function twice: a Variable created again
raises TensorFlow's ValueError on the first call; that run gets the first run's results for
its stateful calls instead of performing them, so no state changes twice.

Calls made while a tape (or ``%%tape``'s profiler) records on this thread replay the program
op by op through the dispatcher (`Program.run_observed`), so the recorder sees every op:
gradients of any order through a function are exactly the eager ones. Inside another
function's trace, a function's Python code runs, so that the outer trace records its ops.

Deliberate differences from TensorFlow, documented on `function`: programs are specialized
on concrete shapes (a ``None`` dimension of an ``input_signature`` accepts any size, and each
new size is traced once); there is no XLA (``jit_compile=True`` is accepted and compiles to
the same program, with a warning).

The package by job: `tracing` (the `Tracer` recorder, its `VerifyingTracer` and the templates
of stateful calls), `guards`, `instructions` (the trace's instruction list: folding, liveness),
`effects` (un-undoable calls, once per call), `compiler` (instructions to straight-line
Python), `program` (`Program`: run, replay under a tape), `signature` (cache keys, specs),
`polymorphic_function` (`Function`), `concrete_function` (`ConcreteFunction`), `graph`
(read-only graph views) and `api` (`function`, `init_scope`, `print_`).
"""

from __future__ import annotations

from .api import function, init_scope, print_
from .concrete_function import ConcreteFunction
from .guards import GuardMiss
from .polymorphic_function import Function
from .program import Program
from .signature import describe, hashable_value
from .tracing import TracedArg, TracedObject, TracedParam, arg_refs

__all__ = [
    "ConcreteFunction",
    "Function",
    "GuardMiss",
    "Program",
    "TracedArg",
    "TracedObject",
    "TracedParam",
    "arg_refs",
    "describe",
    "function",
    "hashable_value",
    "init_scope",
    "print_",
]
