"""`keras.optimizers.legacy`: the names tf.keras 2.11-2.15 gave its older optimizer classes
(``tf.keras.optimizers.legacy.Adam``), here the same classes as `keras.optimizers`.

Keras 3 refuses these names with an ImportError (it points to the ``tf_keras`` package).
eagerkernel runs code from TensorFlow 2's guides of both eras, so the names work and make the
current optimizers, which take the legacy classes' ``decay`` argument too (Keras 2's time
decay, ``lr / (1 + decay * iterations)``).

>>> ek.keras.optimizers.legacy.Adam(learning_rate=0.01).learning_rate.numpy()
np.float32(0.01)
"""

from __future__ import annotations

from .adagrad import Adagrad
from .adam import Adam
from .base import Optimizer
from .ftrl import Ftrl
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop"]
