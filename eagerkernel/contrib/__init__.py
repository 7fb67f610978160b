"""``tf.contrib`` of TensorFlow 1.x, as its eager guides use it: ``tfe = tf.contrib.eager``
(or ``import eagerkernel.contrib.eager as tfe``) and ``tf.contrib.summary``."""

from __future__ import annotations

from ..runtime.io.summary import contrib_summary as summary
from . import eager

__all__ = ["eager", "summary"]
