"""``tensorflow.compiler.tf2xla.python`` for eagerkernel: see ``xla.py``."""
