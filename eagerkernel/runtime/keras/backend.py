"""`ek.keras.backend`: process-wide Keras settings and utilities (follows `tf.keras.backend`).

``floatx``, ``epsilon``, ``image_data_format`` and their setters, ``clear_session`` and
``is_keras_tensor``; the math functions of `backend_math` (``mean``, ``std``, ``clip`` ...).
The losses and metrics read `epsilon` at each call, so `set_epsilon`
changes their clipping bound. The layers create float32 weights and take channels-last
images whatever is set here, so `set_floatx` and `set_image_data_format` accept only those
values and raise NotImplementedError for the others rather than ignore them.
"""

from __future__ import annotations

import gc

from ..ops import ctc as _ctc
from ..ops.ctc import ctc_label_dense_to_sparse
from .backend_math import (
    abs,
    cast,
    clip,
    exp,
    get_value,
    int_shape,
    log,
    max,
    mean,
    min,
    random_normal,
    random_uniform,
    set_value,
    sqrt,
    square,
    std,
    sum,
    var,
)
from .keras_tensor import KerasTensor

__all__ = [
    "abs",
    "backend",
    "cast",
    "clear_session",
    "clip",
    "ctc_batch_cost",
    "ctc_decode",
    "ctc_label_dense_to_sparse",
    "epsilon",
    "exp",
    "floatx",
    "get_uid",
    "get_value",
    "image_data_format",
    "int_shape",
    "is_float_dtype",
    "is_int_dtype",
    "is_keras_tensor",
    "log",
    "max",
    "mean",
    "min",
    "random_normal",
    "random_uniform",
    "result_type",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
    "set_value",
    "sqrt",
    "square",
    "standardize_dtype",
    "std",
    "sum",
    "var",
]

_FLOATX = "float32"
_IMAGE_DATA_FORMAT = "channels_last"
_epsilon = 1e-7


def floatx() -> str:
    """The default float type of Keras weights and inputs, ``"float32"`` unless `set_floatx`
    changed it (follows `tf.keras.backend.floatx`).

    >>> ek.keras.backend.floatx()
    'float32'
    """
    return _FLOATX


def set_floatx(value) -> None:
    """Sets the default float type (follows `tf.keras.backend.set_floatx`): layers created
    afterwards without ``dtype=`` (or a global policy) compute and keep their weights in it,
    initializers and metrics default to it, and ``fit`` converts floating NumPy data to it.

    >>> ek.keras.backend.set_floatx("float64")
    >>> ek.keras.layers.Dense(2)(ek.ones((1, 3), ek.float64)).dtype
    ek.float64
    >>> ek.keras.backend.set_floatx("float32")

    Raises:
        ValueError: ``value`` is not one of "bfloat16", "float16", "float32", "float64".
        NotImplementedError: "bfloat16" (NumPy has no bfloat16).
    """
    global _FLOATX
    accepted = ("bfloat16", "float16", "float32", "float64")
    value = str(value)
    if value not in accepted:
        raise ValueError(
            f"set_floatx: unknown `floatx` value: {value}. Expected one of {set(accepted)}"
        )
    if value == "bfloat16":
        raise NotImplementedError(
            "set_floatx('bfloat16'): NumPy (and so eagerkernel) has no bfloat16."
        )
    _FLOATX = value


def epsilon() -> float:
    """The fuzz factor of numeric expressions, 1e-7 by default (follows
    `tf.keras.backend.epsilon`): the losses clip probabilities to ``[eps, 1 - eps]``.

    >>> ek.keras.backend.epsilon()
    1e-07
    """
    return _epsilon


def set_epsilon(value) -> None:
    """Sets `epsilon` (follows `tf.keras.backend.set_epsilon`).

    Raises:
        ValueError: ``value`` is not a number in [0, 0.5).

    >>> ek.keras.backend.set_epsilon(1e-5)
    >>> round(float(ek.keras.losses.binary_crossentropy([1.0], [1.0])), 7)  # -log(1 - 1e-5)
    1e-05
    >>> ek.keras.backend.set_epsilon(1e-7)
    """
    global _epsilon
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"set_epsilon: expected a number, received {value!r}.") from None
    if not 0.0 <= value < 0.5:
        raise ValueError(f"set_epsilon: epsilon must be in [0, 0.5), received {value}.")
    _epsilon = value


def image_data_format() -> str:
    """``"channels_last"``: images are ``(batch, height, width, channels)`` (follows
    `tf.keras.backend.image_data_format`).

    >>> ek.keras.backend.image_data_format()
    'channels_last'
    """
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format) -> None:
    """Sets the default image layout (follows `tf.keras.backend.set_image_data_format`).

    Raises:
        ValueError: neither "channels_last" nor "channels_first".
        NotImplementedError: "channels_first" (the layers' default stays channels-last; pass
            ``data_format=`` to a layer instead).
    """
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            "set_image_data_format: the `data_format` argument must be one of "
            f"{{'channels_first', 'channels_last'}}. Received: data_format={data_format!r}"
        )
    if data_format != _IMAGE_DATA_FORMAT:
        raise NotImplementedError(
            f"set_image_data_format({data_format!r}): the layers' default is channels_last; "
            "pass data_format= to each layer instead."
        )


def clear_session(free_memory: bool = True) -> None:
    """Resets Keras's global state (follows `tf.keras.backend.clear_session`): layer names
    start again (the next Dense is ``dense``, not ``dense_7``); with ``free_memory``, a
    garbage collection frees the arrays of models no longer referenced.

    >>> _ = ek.keras.layers.Dense(1)
    >>> ek.keras.backend.clear_session()
    >>> ek.keras.layers.Dense(1).name
    'dense'
    """
    from .layers.base import reset_unique_names

    reset_unique_names()
    if free_memory:
        gc.collect()


def is_keras_tensor(x) -> bool:
    """Whether ``x`` is a symbolic Keras tensor (an `ek.keras.Input` or a layer's output on
    one), not an eager Tensor or an array (follows `tf.keras.backend.is_keras_tensor`).

    >>> ek.keras.backend.is_keras_tensor(ek.keras.Input(shape=(3,)))
    True
    >>> ek.keras.backend.is_keras_tensor(ek.constant([1.0]))
    False
    """
    return isinstance(x, KerasTensor)


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """CTC loss of each example, ``[batch, 1]`` (follows Keras 2's
    `tf.keras.backend.ctc_batch_cost`): ``y_true`` int ``[batch, max_label_len]``, ``y_pred``
    softmax outputs ``[batch, frames, classes]`` whose last class is the blank,
    ``input_length`` and ``label_length`` int ``[batch, 1]``. The logits are
    ``log(y_pred + epsilon())``; labels too long for their frames raise InvalidArgumentError.
    Gradients flow to ``y_pred``.

    >>> y_pred = ek.fill([1, 2, 2], 0.5)  # 2 frames, classes {0, blank}
    >>> ek.keras.backend.ctc_batch_cost([[0]], y_pred, [[2]], [[1]]).numpy().round(4)
    array([[0.2877]], dtype=float32)
    """
    return _ctc.keras_batch_cost(y_true, y_pred, input_length, label_length, _epsilon)


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Decodes softmax outputs ``[batch, frames, classes]`` (last class: blank) by best path
    or beam search (follows Keras 2's `tf.keras.backend.ctc_decode`). ``input_length``
    ``[batch]`` may be of any numeric dtype (cast to int32 first, as Keras 2 does; keras-io's
    ASR examples pass ``np.ones(batch) * frames``).

    Returns:
        ``(decoded, log_prob)``: a list of ``top_paths`` int64 ``[batch, frames]`` tensors
        padded with -1, and ``[batch, top_paths]`` scores (greedy: minus the sum of each
        frame's greatest ``log(y_pred + epsilon())``).

    >>> y_pred = ek.constant([[[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]]])
    >>> ek.keras.backend.ctc_decode(y_pred, [3])[0][0].numpy()
    array([[ 0,  0, -1]])
    """
    return _ctc.keras_decode(y_pred, input_length, greedy, beam_width, top_paths, _epsilon)


def backend() -> str:
    """``"tensorflow"``: the backend Keras code sees (follows `keras.backend.backend`; see
    `keras.config.backend`)."""
    return "tensorflow"


_uids: dict = {}


def get_uid(prefix: str = "") -> int:
    """1, 2, 3, ... on successive calls with one ``prefix`` (follows `keras.backend.get_uid`);
    `clear_session` does not reset them.

    >>> a, b = ek.keras.backend.get_uid("doc"), ek.keras.backend.get_uid("doc")
    >>> b - a
    1
    """
    _uids[prefix] = _uids.get(prefix, 0) + 1
    return _uids[prefix]


def standardize_dtype(dtype) -> str:
    """The canonical name of ``dtype`` (follows `keras.backend.standardize_dtype`; see
    `keras.utils.standardize_dtype`)."""
    from .utils import standardize_dtype as standardize

    return standardize(dtype)


def is_float_dtype(dtype) -> bool:
    """Whether ``dtype`` is a floating dtype (follows `keras.backend.is_float_dtype`)."""
    name = standardize_dtype(dtype)
    return name.startswith(("float", "bfloat"))


def is_int_dtype(dtype) -> bool:
    """Whether ``dtype`` is a signed or unsigned integer dtype (follows
    `keras.backend.is_int_dtype`)."""
    return standardize_dtype(dtype).startswith(("int", "uint"))


def result_type(*dtypes) -> str:
    """The dtype Keras 3's ops give for inputs of ``dtypes`` (dtype names or objects; the
    Python types ``int``, ``float``, ``bool`` stand for Python numbers, which are weak)
    (follows `keras.backend.result_type`).

    >>> result_type = ek.keras.backend.result_type
    >>> result_type("int32", "float16"), result_type("int8", float), result_type("uint8", "int8")
    ('float16', 'float32', 'int16')
    """
    from .ops.promotion import dtypes_result_type

    return dtypes_result_type(*dtypes)
