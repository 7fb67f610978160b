"""TensorFlow 1.x names (``tf.train`` optimizers, ``tf.layers``, ``tfe.Network``, ...)."""
