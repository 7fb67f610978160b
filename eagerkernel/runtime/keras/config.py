"""`ek.keras.config`: process-wide Keras settings (follows Keras 3's `keras.config`).

The backend is TensorFlow's, as far as Keras code can tell: ``backend()`` is
``"tensorflow"``, so code that branches on it takes the path written for TensorFlow, which
runs on eagerkernel's ``tf`` names. The other settings are the ones `keras.backend`,
`keras.mixed_precision` and `ek.debugging` keep; `set_max_epochs` and
`set_max_steps_per_epoch` cap `fit` (and the steps of `evaluate` and `predict`) for quick
debugging runs, also from the environment variables ``KERAS_MAX_EPOCHS`` and
``KERAS_MAX_STEPS_PER_EPOCH``.
"""

from __future__ import annotations

from ..traceback_utils import (
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)
from .backend import (
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)
from .dtype_policies import global_policy as dtype_policy
from .dtype_policies import set_global_policy as set_dtype_policy
from .io_utils import (
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from .run_limits import max_epochs, max_steps_per_epoch, set_max_epochs, set_max_steps_per_epoch
from .saving import enable_unsafe_deserialization

__all__ = [
    "backend",
    "disable_flash_attention",
    "disable_interactive_logging",
    "disable_traceback_filtering",
    "dtype_policy",
    "enable_flash_attention",
    "enable_interactive_logging",
    "enable_traceback_filtering",
    "enable_unsafe_deserialization",
    "epsilon",
    "floatx",
    "image_data_format",
    "is_flash_attention_enabled",
    "is_interactive_logging_enabled",
    "is_nnx_enabled",
    "is_traceback_filtering_enabled",
    "max_epochs",
    "max_steps_per_epoch",
    "set_backend",
    "set_dtype_policy",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
    "set_max_epochs",
    "set_max_steps_per_epoch",
]


def backend() -> str:
    """``"tensorflow"``: the backend Keras code sees (follows `keras.config.backend`).

    >>> ek.keras.config.backend()
    'tensorflow'
    """
    return "tensorflow"


def set_backend(backend: str) -> None:
    """Accepts ``"tensorflow"`` (the one backend; follows `keras.config.set_backend`).

    Raises:
        ValueError: any other backend (``"jax"``, ``"torch"``, ``"numpy"``): eagerkernel
            is TensorFlow's API only.
    """
    if backend != "tensorflow":
        raise ValueError(
            f"keras.config.set_backend: only 'tensorflow' is available here (eagerkernel "
            f"implements TensorFlow's API). Received: backend={backend!r}"
        )


def is_flash_attention_enabled() -> bool:
    """False: there is no flash-attention kernel (follows
    `keras.config.is_flash_attention_enabled`)."""
    return False


def enable_flash_attention() -> None:
    """Raises NotImplementedError: there is no flash-attention kernel here (Keras's
    TensorFlow backend raises too when a layer then asks for it)."""
    raise NotImplementedError(
        "keras.config.enable_flash_attention: flash attention is not available; the "
        "attention layers compute the softmax of the full score matrix."
    )


def disable_flash_attention() -> None:
    """Accepted: flash attention is always off (follows
    `keras.config.disable_flash_attention`)."""


def is_nnx_enabled() -> bool:
    """False: Flax NNX is JAX's (follows `keras.config.is_nnx_enabled`)."""
    return False
