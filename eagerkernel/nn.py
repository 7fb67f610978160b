"""`ek.nn`: the neural-network ops under TensorFlow's `tf.nn` names (activations, convolutions,
pooling, normalization, losses on logits, dropout, embeddings). The ops live in
``runtime/ops/nn.py`` and its neighbours; this module holds their public names only."""

from types import SimpleNamespace as _Namespace

from .runtime.ops.nn import *  # noqa: F403
from .runtime.ops.nn import __all__  # noqa: F401
from .runtime.ops.nn import stateless_dropout as _stateless_dropout

#: ``tf.nn.experimental``: the stateless dropout.
experimental = _Namespace(stateless_dropout=_stateless_dropout)
