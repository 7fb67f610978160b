"""`ek.random`: random numbers under TensorFlow's `tf.random` names (the global seed, stateful
and stateless samplers, `Generator`, the candidate samplers). The ops live in
``runtime/random.py`` and ``runtime/ops/candidate_sampling.py``; this module holds their public
names only."""

from .runtime.ops.candidate_sampling import (
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from .runtime.random import *  # noqa: F403
from .runtime.random import __all__ as _runtime_all

__all__ = [
    *_runtime_all,
    "all_candidate_sampler",
    "fixed_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "uniform_candidate_sampler",
]
