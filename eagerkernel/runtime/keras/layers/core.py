"""Core layers: Dense, Activation, ReLU, Flatten, Reshape, Dropout, InputLayer, Lambda."""

from __future__ import annotations

import numbers

import numpy as np

from ...core.tensor import Tensor
from ...ops import array_ops, linalg
from ...ops import nn as _nn
from ...sparse.sparse_tensor import SparseTensor
from .. import activations, initializers, regularizers
from .. import random as keras_random
from ._utils import (
    add_kernel_and_bias,
    cast_to_layer_dtype,
    check_last_axis,
    num_elements,
    set_weight_args,
    shape_of,
)
from .base import Layer

__all__ = ["Activation", "Dense", "Dropout", "Flatten", "InputLayer", "Lambda", "ReLU", "Reshape"]


class Dense(Layer):
    """Densely connected layer: ``activation(inputs @ kernel + bias)`` (follows
    `tf.keras.layers.Dense`).

    Args:
        units: positive int, the output size.
        activation: a name (``"relu"``), a function, or None (linear).
        use_bias: add a bias vector.
        kernel_initializer, bias_initializer: initializers (names, objects or callables).
        kernel_regularizer, bias_regularizer: `ek.keras.regularizers` (objects, names such
            as ``"l2"``, configs) or callables ``weight -> scalar``, collected in `losses`.
        activity_regularizer: the same, applied to the output at each call (`add_loss`).
        kernel_constraint, bias_constraint: applied by optimizers after each update.

    Input shape:
        ``(batch_size, ..., input_dim)``: rank 2 or more; the kernel multiplies the last axis.

    Output shape:
        ``(batch_size, ..., units)``.

    Weights: ``kernel`` of shape ``(input_dim, units)``, then ``bias`` of shape ``(units,)``.

    Raises:
        ValueError: ``units`` not a positive int; an input of rank below 2, or whose last axis
            differs from the one the layer was built for (both shapes named).

    >>> layer = ek.keras.layers.Dense(4, activation="relu", name="hidden")
    >>> layer(ek.ones((2, 3))).shape
    TensorShape([2, 4])
    >>> [(v.name, tuple(v.shape)) for v in layer.variables]
    [('hidden/kernel:0', (3, 4)), ('hidden/bias:0', (4,))]
    >>> layer(ek.ones((5, 7, 3))).shape
    TensorShape([5, 7, 4])
    """

    supports_masking = True  # passes a Keras mask on (see keras.masking)
    # the input shape `build` saw; None when the code set ``built = True`` and assigned
    # ``kernel``/``bias`` itself (a hypernetwork's generated weights, Keras's research guide)
    _built_shape = None

    def __init__(
        self,
        units,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if isinstance(units, bool) or not isinstance(units, numbers.Integral) or units <= 0:
            raise ValueError(
                f"Received an invalid value for `units`, expected a positive integer. "
                f"Received: units={units!r}"
            )
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        # None means the default, as in TF 1.x's tf.layers (bias_initializer=None is zeros).
        set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint, "zeros")
        self.activity_regularizer = regularizers.get(activity_regularizer)

    def build(self, input_shape) -> None:
        input_shape = tuple(input_shape)
        if len(input_shape) < 2 or input_shape[-1] is None:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"min_ndim=2 with a known last axis. Full shape received: {input_shape}"
            )
        self._built_shape = input_shape
        add_kernel_and_bias(self, (input_shape[-1], self.units), self.units)
        self.built = True

    def call(self, inputs):
        if type(inputs) is not Tensor and isinstance(inputs, SparseTensor):
            return self._call_sparse(inputs)
        x = cast_to_layer_dtype(self, inputs)
        shape = shape_of(x)
        if len(shape) < 2:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"min_ndim=2, found ndim={len(shape)}. Full shape received: {shape}"
            )
        kernel = self.kernel
        k = getattr(kernel, "_value", kernel)  # a Variable's (or an autocast Tensor's) array
        check_last_axis(self, shape, k.shape[0], self._built_shape)
        if type(x) is Tensor and k is not kernel and x._value.dtype == k.dtype and k.ndim == 2:
            # Shapes and dtypes checked: the ops themselves, without the public functions'
            # conversions and checks (a layer's step is mostly such small ops).
            matmul, bias_add = linalg.matmul_op, _nn.bias_add_op
        else:  # the public functions, which raise the documented errors
            matmul, bias_add = linalg.matmul, _nn.bias_add
        if len(shape) == 2:
            y = matmul(x, kernel)
        else:  # one GEMM over all leading axes
            flat = array_ops.reshape(x, (-1, shape[-1]))
            y = array_ops.reshape(matmul(flat, kernel), (*shape[:-1], self.units))
        if self.use_bias:
            bias, out = self.bias, y._value
            if (
                bias_add is _nn.bias_add_op
                and bias._value.dtype == out.dtype
                and bias._value.shape == out.shape[-1:]
            ):
                y = bias_add(y, bias, out.ndim - 1)
            else:
                y = _nn.bias_add(y, bias)
        # Keras 3 skips an activation set to None after construction (grad_cam.py does this)
        return y if self.activation is None else self.activation(y)

    def _call_sparse(self, inputs: SparseTensor):
        """A 2-D SparseTensor input: ``sparse_dense_matmul(inputs, kernel) + bias``, as
        Keras's Dense does (gradients reach the kernel, the bias and the sparse values)."""
        from ...ops.elementwise import cast
        from ...sparse.sparse_ops import sparse_dense_matmul

        shape = tuple(int(d) for d in np.asarray(inputs.dense_shape._value))
        if len(shape) != 2:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: a SparseTensor '
                f"input must have rank 2. Full shape received: {shape}"
            )
        check_last_axis(self, shape, self.kernel.shape[0], self._built_shape)
        if inputs.values._value.dtype != self._dtype._np:
            inputs = inputs.with_values(cast(inputs.values, self._dtype._np))
        y = sparse_dense_matmul(inputs, self.kernel)
        if self.use_bias:
            y = _nn.bias_add(y, self.bias)
        return self.activation(y)

    def compute_output_shape(self, input_shape) -> tuple:
        return (*tuple(input_shape)[:-1], self.units)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
        }


class Activation(Layer):
    """Applies an activation function (follows `tf.keras.layers.Activation`).

    Args:
        activation: a name (``"relu"``, ``"softmax"``, ...) or a function of a Tensor.

    Input shape:
        Any.

    Output shape:
        Same as the input.

    >>> ek.keras.layers.Activation("relu")(ek.constant([[-1.0, 2.0]])).numpy()
    array([[0., 2.]], dtype=float32)
    """

    supports_masking = True  # passes a Keras mask on (see keras.masking)

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


class ReLU(Layer):
    """Rectified linear unit with Keras's options (follows `tf.keras.layers.ReLU`).

    ``x`` for ``x >= threshold``, ``negative_slope * (x - threshold)`` below, then capped at
    ``max_value``.

    Args:
        max_value: None (no cap) or a non-negative float.
        negative_slope: non-negative float (0: a plain ReLU).
        threshold: float.

    Input shape:
        Any.

    Output shape:
        Same as the input.

    Raises:
        ValueError: a negative ``max_value`` or ``negative_slope``.

    >>> ek.keras.layers.ReLU(max_value=6.0)(ek.constant([-1.0, 3.0, 9.0])).numpy()
    array([0., 3., 6.], dtype=float32)
    """

    supports_masking = True  # passes a Keras mask on (see keras.masking)

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0:
            raise ValueError(
                f"max_value of a ReLU layer cannot be a negative value. Received: "
                f"max_value={max_value}"
            )
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                f"negative_slope of a ReLU layer cannot be a negative value. Received: "
                f"negative_slope={negative_slope}"
            )
        if threshold is None:
            raise ValueError("threshold of a ReLU layer cannot be None. Received: threshold=None")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs):
        return activations.relu(
            inputs, alpha=self.negative_slope, max_value=self.max_value, threshold=self.threshold
        )

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }


class Flatten(Layer):
    """Flattens all axes but the batch axis (follows `tf.keras.layers.Flatten`).

    Input shape:
        ``(batch_size, ...)``; a rank-1 input gives ``(batch_size, 1)``.

    Output shape:
        ``(batch_size, prod(...))``.

    >>> ek.keras.layers.Flatten()(ek.ones((2, 3, 4))).shape
    TensorShape([2, 12])
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        fmt = "channels_last" if data_format is None else str(data_format).lower()
        if fmt not in ("channels_last", "channels_first"):
            raise ValueError(
                "Flatten: data_format must be 'channels_last' or 'channels_first'. Received: "
                f"data_format={data_format!r}"
            )
        self.data_format = fmt

    def call(self, inputs):
        shape = shape_of(inputs)
        if not shape:
            raise ValueError(f'Layer "{self.name}": cannot flatten a scalar (shape ()).')
        if self.data_format == "channels_first" and len(shape) > 2:
            # Keras flattens in channels-last order: (batch, C, ...) -> (batch, ..., C) first.
            inputs = array_ops.transpose(inputs, (0, *range(2, len(shape)), 1))
        return array_ops.reshape(inputs, (shape[0], int(np.prod(shape[1:], dtype=np.int64))))

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        return (input_shape[0], num_elements(input_shape[1:]) if len(input_shape) > 1 else 1)


class Reshape(Layer):
    """Reshapes each example to ``target_shape`` (follows `tf.keras.layers.Reshape`).

    Args:
        target_shape: a tuple of ints without the batch axis; one entry may be -1.

    Input shape:
        ``(batch_size, ...)``.

    Output shape:
        ``(batch_size, *target_shape)``, the -1 resolved.

    Raises:
        ValueError: more than one -1, or a target size that differs from the input's.

    >>> ek.keras.layers.Reshape((3, -1))(ek.ones((2, 12))).shape
    TensorShape([2, 3, 4])
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        target = tuple(int(d) for d in target_shape)
        if sum(d == -1 for d in target) > 1 or any(d < -1 or d == 0 for d in target):
            raise ValueError(
                "Reshape: target_shape may contain one -1 and otherwise positive integers. "
                f"Received: target_shape={target_shape!r}"
            )
        self.target_shape = target

    def _resolve(self, input_shape: tuple) -> tuple:
        size = num_elements(input_shape[1:])
        known = int(np.prod([d for d in self.target_shape if d != -1], dtype=np.int64))
        if size is None:
            return (input_shape[0], *(None if d == -1 else d for d in self.target_shape))
        if -1 in self.target_shape:
            if known == 0 or size % known:
                self._mismatch(input_shape)
            return (input_shape[0], *(size // known if d == -1 else d for d in self.target_shape))
        if known != size:
            self._mismatch(input_shape)
        return (input_shape[0], *self.target_shape)

    def _mismatch(self, input_shape) -> None:
        raise ValueError(
            f'Layer "{self.name}": the total size of the new array must be unchanged, '
            f"input_shape = {tuple(input_shape[1:])}, output_shape = {self.target_shape}"
        )

    def call(self, inputs):
        return array_ops.reshape(inputs, self._resolve(shape_of(inputs)))

    def compute_output_shape(self, input_shape) -> tuple:
        return self._resolve(tuple(input_shape))

    def get_config(self) -> dict:
        return {**super().get_config(), "target_shape": self.target_shape}


class Dropout(Layer):
    """Randomly zeroes inputs with probability ``rate`` during training and scales the rest by
    ``1 / (1 - rate)`` (follows `tf.keras.layers.Dropout`).

    Active only when called with ``training=True`` (directly or through the model that
    contains it); otherwise the identity.

    Args:
        rate: float in ``[0, 1)``, the fraction of the units to drop.
        noise_shape: the shape of the keep/drop mask, broadcast against the input; None
            entries take the input's size (``(batch, 1, features)`` drops whole features).
        seed: with a seed, the sequence of masks is reproducible (also with
            `ek.random.set_seed`), and different at each call.

    Input shape:
        Any.

    Output shape:
        Same as the input.

    Raises:
        ValueError: ``rate`` outside ``[0, 1)``.

    >>> layer = ek.keras.layers.Dropout(0.5, seed=1)
    >>> layer(ek.ones((2, 2))).numpy()
    array([[1., 1.],
           [1., 1.]], dtype=float32)
    >>> sorted(set(layer(ek.ones((100,)), training=True).numpy().tolist()))
    [0.0, 2.0]
    """

    supports_masking = True  # passes a Keras mask on (see keras.masking)

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0 <= rate < 1:
            raise ValueError(
                f"Invalid value received for argument `rate`. Expected a float value between "
                f"0 and 1 (1 excluded). Received: rate={rate!r}"
            )
        self.rate = float(rate)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed
        # Keras's: a SeedGenerator made now (unseeded: from Python's `random`), advanced by
        # every training call, so masks are Keras's for the same seeds.
        self.seed_generator = keras_random.SeedGenerator(seed) if self.rate > 0 else None

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        return keras_random.dropout(inputs, self.rate, self.noise_shape, self.seed_generator)

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "rate": self.rate,
            "noise_shape": self.noise_shape,
            "seed": self.seed,
        }


class InputLayer(Layer):
    """Declares the input shape of a model; the identity (follows `tf.keras.layers.InputLayer`).

    Args:
        input_shape: shape of one example (no batch axis), e.g. ``(28, 28, 1)``; Keras 3's
            ``shape`` is accepted too.
        batch_size: optional fixed batch size.

    Input shape:
        ``(batch_size, *input_shape)``.

    Output shape:
        Same as the input.

    >>> ek.keras.layers.InputLayer(input_shape=(3,)).compute_output_shape((None, 3))
    (None, 3)
    """

    def __init__(self, input_shape=None, batch_size=None, dtype=None, name=None, **kwargs):
        shape = kwargs.pop("shape", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        batch_input_shape = kwargs.pop("batch_shape", batch_input_shape)
        self.sparse = bool(kwargs.pop("sparse", None))  # fed SparseTensors
        for arg in ("ragged", "input_tensor", "optional"):
            value = kwargs.pop(arg, None)
            if value not in (None, False):
                raise NotImplementedError(
                    f"InputLayer: {arg}= is not supported (dense or sparse inputs only). "
                    f"Received: {arg}={value!r}"
                )
        if dtype is None:  # Keras: floatx, whatever the global policy (not mixed_float16)
            from ..backend import floatx

            dtype = floatx()
        super().__init__(dtype=dtype, name=name, **kwargs)
        if input_shape is None:
            input_shape = shape
        if batch_input_shape is not None:
            self._batch_input_shape = tuple(batch_input_shape)
        elif input_shape is not None:
            self._batch_input_shape = (batch_size, *tuple(input_shape))
        self.built = True

    @property
    def output(self):
        """The `KerasTensor` this layer feeds a functional model (made on first use)."""
        nodes = self.__dict__.get("_inbound_nodes")
        if not nodes:
            from ..functional import make_input_tensor

            if getattr(self, "_batch_input_shape", None) is None:
                raise ValueError(
                    f"InputLayer {self.name!r}: give input_shape (or batch_shape) to use it in "
                    "a model."
                )
            return make_input_tensor(self)
        return nodes[0].outputs

    def compute_output_shape(self, input_shape=None) -> tuple:
        if input_shape is None:
            return getattr(self, "_batch_input_shape", None)
        return tuple(input_shape)

    def get_config(self) -> dict:
        shape = getattr(self, "_batch_input_shape", None)
        return {
            "batch_shape": None if shape is None else list(shape),
            "dtype": self.dtype,
            "sparse": self.sparse,
            "name": self.name,
        }


class Lambda(Layer):
    """Wraps a function of Tensors as a layer, without weights (follows `tf.keras.layers.Lambda`).

    Args:
        function: called as ``function(inputs, **arguments)``.
        output_shape: optional shape (without the batch axis) or function of the input shape,
            for `compute_output_shape`.
        mask: optional output mask (`compute_mask`): a function ``(inputs, mask) -> mask``
            or a fixed mask.
        arguments: optional keyword arguments for ``function``.

    Input shape:
        Whatever ``function`` accepts.

    Output shape:
        Whatever ``function`` returns.

    >>> ek.keras.layers.Lambda(lambda x: x * 2)(ek.constant([1.0])).numpy()
    array([2.], dtype=float32)
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        if not callable(function):  # else the first call fails, far from the mistake
            raise TypeError(
                f"Lambda: argument `function` must be callable. Received: function={function!r:.80}"
            )
        super().__init__(**kwargs)
        self.function = function
        self._output_shape_arg = output_shape
        self.mask = mask
        self.arguments = dict(arguments or {})

    def call(self, inputs):
        return self.function(inputs, **self.arguments)

    def compute_mask(self, inputs, mask=None):
        """The output mask: ``mask(inputs, previous_mask)`` when ``mask`` is a function,
        else ``mask`` itself (None: no mask), as Keras's Lambda."""
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape) -> tuple:
        if self._output_shape_arg is None:
            raise NotImplementedError(
                f"Lambda layer {self.name!r}: pass output_shape= to give its output shape."
            )
        if callable(self._output_shape_arg):
            return tuple(self._output_shape_arg(tuple(input_shape)))
        first = input_shape  # the batch: the first dimension of the first input (Keras 3)
        while isinstance(first, (list, tuple)) and first and not _is_dim(first[0]):
            first = first[0]
        batch = tuple(first)[:1] if isinstance(first, (list, tuple)) else ()
        return (*batch, *tuple(self._output_shape_arg))

    def get_config(self) -> dict:
        """The config, as Keras 3 writes it: a named function of an importable module by its
        module and name; a lambda or any other function as its bytecode, which `from_config`
        (and `load_model`) only load with ``safe_mode=False`` (see
        `ek.keras.saving.serialize_function`).

        Raises:
            NotImplementedError: a ``mask`` that is a function, or a function whose defaults
                or closure hold values JSON cannot (a tensor, a layer).
        """
        from ..saving import serialize_function, serialize_keras_object

        if callable(self.mask):
            raise NotImplementedError(
                f"Lambda layer {self.name!r}: a mask function cannot be serialized."
            )
        config = {
            **super().get_config(),
            "function": serialize_function(self.function, f"Lambda layer {self.name!r}"),
            "arguments": serialize_keras_object(self.arguments),
        }
        shape = self._output_shape_arg
        if shape is not None:
            config["output_shape"] = (
                serialize_function(shape, f"Lambda layer {self.name!r}")
                if callable(shape)
                else list(shape)
            )
        if self.mask is not None:
            config["mask"] = self.mask
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """The layer `get_config` describes.

        Raises:
            ValueError: a function stored as bytecode, unless ``safe_mode=False`` was given
                to `load_model` or `ek.keras.config.enable_unsafe_deserialization()` was
                called (Keras's message).
        """
        from ..saving import deserialize_function, deserialize_keras_object

        config = dict(config)
        config["function"] = deserialize_function(config["function"], custom_objects)
        shape = config.get("output_shape")
        if isinstance(shape, (dict, str)):
            config["output_shape"] = deserialize_function(shape, custom_objects)
        elif isinstance(shape, list):
            config["output_shape"] = tuple(shape)
        config["arguments"] = deserialize_keras_object(config.get("arguments"), custom_objects)
        return cls(**config)


def _is_dim(x) -> bool:
    return x is None or isinstance(x, int)
