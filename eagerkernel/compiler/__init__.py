"""`ek.compiler`: the one module of TensorFlow's ``tensorflow.compiler`` package that user code
imports (``tf2xla.python.xla``)."""
