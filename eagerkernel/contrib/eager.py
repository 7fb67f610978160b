"""``tf.contrib.eager`` (``tfe``) of TensorFlow 1.x: eagerkernel's own namespace, whose
``Variable`` keeps TensorFlow 1.x eager's in-place operators.

Every name is `eagerkernel`'s (``tfe.gradients_function``, ``tfe.Variable``,
``tfe.Iterator`` ...), looked up on use. `Variable` differs in one way: ``x += t * d`` gives a
new Tensor bound to ``x`` (the Variable is left as it was), as the TF 1.x eager programs of that
time rely on; TensorFlow 2's ``tf.Variable`` raises RuntimeError there instead.

>>> import eagerkernel.contrib.eager as tfe
>>> x = tfe.Variable([1.0, 2.0])
>>> y = x
>>> x += ek.constant([1.0, 1.0])
>>> x.numpy(), y.numpy()
(array([2., 3.], dtype=float32), array([1., 2.], dtype=float32))
"""

from __future__ import annotations

import eagerkernel as _ek

from ..runtime.core.variable import Variable as _Variable

__all__ = ["Variable"]


class Variable(_Variable):
    """An `ek.Variable` whose ``+=``, ``-=``, ``*=``, ``/=`` and ``**=`` compute a new Tensor,
    ``x = x + value`` (TensorFlow 1.x eager's ``tfe.Variable``), instead of raising."""

    __slots__ = ()

    def __iadd__(self, other):
        return self + other

    def __isub__(self, other):
        return self - other

    def __imul__(self, other):
        return self * other

    def __itruediv__(self, other):
        return self / other

    def __ipow__(self, other):
        return self**other


def __getattr__(name: str):
    return getattr(_ek, name)


def __dir__() -> list:
    return sorted(set(dir(_ek)) | set(__all__))
