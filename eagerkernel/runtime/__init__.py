"""The eager runtime: tensors, tapes, ops, variables. Never imports IPython."""
