"""Running a cell magic's body as IPython runs a cell, without a second ``run_cell``.

``%%tape`` runs its body on a tape. ``shell.run_cell(body)`` would do that, but it is a whole
second cell: it fires ``pre_run_cell``/``post_run_cell`` a second time for the one cell the
user ran, and it tokenizes, parses and compiles the body again on every run, which costs about
as much as a few hundred small ops (a re-run cell is the common case: one edits and re-runs
the same cell). `run_body` does what ``run_cell`` does between those events: IPython's input
transformations (magics, ``!`` and ``?`` lines inside the body), its caching compiler (so
tracebacks show the body's lines under the cell's number), its AST transformers, and
``run_code`` for each statement, the last one in ``single`` mode so that a final expression
is displayed (``ast_node_interactivity = "last_expr"``, IPython's default). The transformed
code and compiled statements are kept per cell text and reused while the compiler gives the
cell the same name.

Anything else (another ``ast_node_interactivity``, top-level ``await``, a body that does not
parse) takes ``shell.run_cell(body)`` under the cell's number, which reports syntax errors as
usual.
"""

from __future__ import annotations

import ast
import inspect

from IPython.core.interactiveshell import ExecutionInfo, ExecutionResult

__all__ = ["run_body"]

_PLANS: dict = {}  # (shell id, body) -> (transformed code, cell name, compiled statements)
_MAX_PLANS = 64


def _finish(coroutine):
    """The value of a coroutine that never awaits (``run_code`` on non-async code), run to its
    end without an event loop, as IPython's own ``_pseudo_sync_runner`` does."""
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value
    coroutine.close()
    raise RuntimeError("run_body: the cell awaited; top-level await is not supported here")


def _compile(shell, transformed: str, cell_name: str) -> list | None:
    """The body's statements compiled as ``run_ast_nodes`` compiles them (one code object per
    statement, the last in ``single`` mode when it is an expression), or None when it must
    go through ``run_cell`` (a parse error to report, top-level ``await``)."""
    compiler = shell.compile
    try:
        tree = compiler.ast_parse(transformed, filename=cell_name)
        tree = shell.transform_ast(tree)
        nodes = tree.body
        modes = ["exec"] * len(nodes)
        if nodes and isinstance(nodes[-1], ast.Expr):
            modes[-1] = "single"
        codes = []
        for node, mode in zip(nodes, modes):
            mod = ast.Module([node], []) if mode == "exec" else ast.Interactive([node])
            code = compiler(mod, cell_name, mode)
            if code.co_flags & inspect.CO_COROUTINE:
                return None
            codes.append(code)
    except Exception:  # run_cell reports it, as for any cell
        return None
    return codes


def _run_cell(shell, body: str, execution_count: int) -> ExecutionResult:
    """``shell.run_cell(body)`` with the shell's count set to ``execution_count`` meanwhile."""
    count = shell.execution_count
    shell.execution_count = execution_count
    try:
        return shell.run_cell(body)
    finally:
        shell.execution_count = count


def run_body(shell, body: str, execution_count: int) -> ExecutionResult:
    """Runs ``body`` in ``shell`` as the code of the cell numbered ``execution_count`` (for
    tracebacks), without the cell events and history of ``run_cell`` (the cell that holds the
    magic has them). Returns the `ExecutionResult`; an exception in the body is shown with
    IPython's traceback and stored in its ``error_in_exec``, as ``run_cell`` does.
    """
    if shell.ast_node_interactivity != "last_expr" or not body.strip():
        return _run_cell(shell, body, execution_count)
    key = (id(shell), body)
    plan = _PLANS.get(key)
    if plan is None:
        try:
            transformed = shell.transform_cell(body)
        except Exception:  # run_cell reports it
            return _run_cell(shell, body, execution_count)
        plan = (transformed, None, None)
    transformed, name, codes = plan
    compiler = shell.compile
    cell_name = compiler.cache(transformed, execution_count, raw_code=body)
    # AST transformers (the user's, registered at any time) apply at every run, so their
    # output is never reused.
    if codes is None or cell_name != name or shell.ast_transformers:
        codes = _compile(shell, transformed, cell_name)
        if codes is None:
            return _run_cell(shell, body, execution_count)
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = (transformed, cell_name, None if shell.ast_transformers else codes)
    info = ExecutionInfo(body, False, False, True, None, transformed_cell=transformed)
    result = ExecutionResult(info)
    result.execution_count = execution_count
    displayhook = shell.displayhook
    with shell.builtin_trap, shell.display_trap:
        displayhook.exec_result = result
        try:
            for code in codes:
                if _finish(shell.run_code(code, result)):
                    break
        finally:
            displayhook.exec_result = None
    return result
