"""The eager runtime: tensors, tapes, ops, variables. Never imports IPython."""

from .native.allocator import keep_freed_memory as _keep_freed_memory

KEEPS_FREED_MEMORY = _keep_freed_memory()  # see allocator.py: no page faults step after step
