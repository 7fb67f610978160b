"""``tensorflow.compiler.tf2xla`` for eagerkernel: see ``python/xla.py``."""
