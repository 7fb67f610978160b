"""The runtime's core: dtypes, tensors, devices, errors, the per-thread context, the one
dispatcher every op runs through, tapes and the recorder interface, variables."""
