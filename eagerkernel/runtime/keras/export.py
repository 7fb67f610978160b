"""`keras.export`: inference artifacts of models (follows Keras 3's ``keras.export``:
`ExportArchive` and ``Model.export(format="tf_saved_model")``).

An artifact is a saved model (`ek.saved_model`, this runtime's own format, not TensorFlow's):
its endpoints are `ek.function`s saved with their programs, so ``ek.saved_model.load(path)``
gives back ``reloaded.serve(x)`` without the model's Python code. An endpoint's
``input_signature`` may leave dimensions open (``None``, the batch): the saved program then
runs at any size of them (see ``runtime/io/saved_model_shapes.py``), as TensorFlow's does.
"""

from __future__ import annotations

from .. import nest
from ..core import dtypes
from ..core.tensor import Tensor
from ..core.variable import Variable
from ..data.structure import TensorSpec
from ..function.polymorphic_function import Function
from ..module import Module
from .keras_tensor import KerasTensor
from .layers.base import Layer
from .layers.input_spec import InputSpec

__all__ = ["ExportArchive", "export_saved_model"]

DEFAULT_ENDPOINT_NAME = "serve"
FORMATS = ("tf_saved_model", "onnx", "openvino", "litert", "torch")


class _Artifact(Module):
    """What an archive saves: its tracked layers, endpoints and variable collections as
    attributes."""


def _tensor_spec(x) -> TensorSpec:
    """A `TensorSpec` of an input signature entry: a TensorSpec as is; a `KerasTensor` or a
    tensor with the batch dimension open; an `InputSpec` with its shape and dtype (Keras's
    ``make_tf_tensor_spec``)."""
    if isinstance(x, TensorSpec):
        return x
    if isinstance(x, InputSpec):
        if x.shape is None or x.dtype is None:
            raise ValueError(f"The `shape` and `dtype` must be provided. Received: x={x}")
        return TensorSpec(tuple(x.shape), dtypes.as_dtype(x.dtype), getattr(x, "name", None))
    if isinstance(x, (KerasTensor, Tensor)):
        shape = tuple(x.shape)
        name = getattr(x, "name", None) if isinstance(x, KerasTensor) else None
        return TensorSpec((None, *shape[1:]), dtypes.as_dtype(x.dtype), name)
    raise TypeError(
        f"Unsupported x={x} of the type ({type(x)}). Supported types are: `keras.InputSpec`, "
        "`keras.KerasTensor` and backend tensor."
    )


class ExportArchive:
    """Collects endpoints and variables of Keras models and layers and writes them as a saved
    model for inference (follows `keras.export.ExportArchive`).

    Args:
        format: ``"saved_model"`` only (Keras's other archive format, ``"neptune_model"``,
            is TPU-specific and raises ValueError).

    >>> model = ek.keras.Sequential([ek.keras.Input((3,)), ek.keras.layers.Dense(2)])
    >>> archive = ek.keras.export.ExportArchive()
    >>> archive.track(model)
    >>> serve = archive.add_endpoint(
    ...     "serve", model.call, input_signature=[ek.TensorSpec((None, 3), ek.float32)]
    ... )
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "artifact")
    >>> archive.write_out(path, verbose=False)
    >>> ek.saved_model.load(path).serve(ek.ones((5, 3))).shape
    TensorShape([5, 2])
    """

    def __init__(self, format: str = "saved_model"):
        if format != "saved_model":
            raise ValueError(f"Unsupported format: {format}")
        self._endpoint_names: list = []
        self._endpoint_signatures: dict = {}
        self._artifact = _Artifact()
        self._variables: list = []
        self._tracked: list = []

    @property
    def variables(self) -> list:
        """The variables of the tracked layers, in tracking order."""
        return list(self._variables)

    @property
    def trainable_variables(self) -> list:
        """The trainable ones of `variables`."""
        return [v for v in self._variables if v.trainable]

    @property
    def non_trainable_variables(self) -> list:
        """The non-trainable ones of `variables` (moving statistics, counters)."""
        return [v for v in self._variables if not v.trainable]

    def track(self, resource) -> None:
        """Adds a built layer or model (its variables) to the archive.

        Raises:
            ValueError: a layer that is not built, or an object that is neither a layer nor
                an `ek.Module`.
        """
        if isinstance(resource, Layer) and not resource.built:
            raise ValueError(
                "The layer provided has not yet been built. It must be built before export."
            )
        if not isinstance(resource, (Layer, Module)):
            raise ValueError(
                "Invalid resource type. Expected a Keras `Layer` or `Model` or a TensorFlow "
                f"`Trackable` object. Received object {resource} of type '{type(resource)}'. "
            )
        self._tracked.append(resource)
        self._artifact._tracked = list(self._tracked)
        known = {id(v) for v in self._variables}
        for v in resource.variables:
            if id(v) not in known:
                known.add(id(v))
                self._variables.append(v)

    def add_endpoint(self, name: str, fn, input_signature=None, **kwargs):
        """Adds the endpoint ``name``: ``fn`` as an `ek.function` with ``input_signature``
        (a structure of `TensorSpec`, `InputSpec`, `KerasTensor` or tensors; None: ``fn``
        must be an `ek.function` called at least once). Returns that function.

        Raises:
            ValueError: a name already taken; no signature for a function that is not an
                `ek.function` or was never called; ``jax2tf_kwargs``/``is_static`` (JAX
                only).
            TypeError: another keyword argument.
        """
        if name in self._endpoint_names:
            raise ValueError(f"Endpoint name '{name}' is already taken.")
        _check_kwargs(kwargs)
        if input_signature is None:
            if not isinstance(fn, Function):
                raise ValueError(
                    "If the `fn` argument provided is not a `tf.function`, you must provide an "
                    "`input_signature` argument to specify the shape and dtype of the function "
                    "arguments. Example:\n\nexport_archive.add_endpoint(\n    name='call',\n"
                    "    fn=model.call,\n    input_signature=[\n        keras.InputSpec(\n"
                    "            shape=(None, 224, 224, 3),\n            dtype='float32',\n"
                    "        )\n    ],\n)"
                )
            if not fn.concrete_functions:
                raise ValueError(
                    f"The provided tf.function '{fn}' has never been called. To specify the "
                    "expected shape and dtype of the function's arguments, you must either "
                    "provide a function that has been called at least once, or alternatively "
                    "pass an `input_signature` argument in `add_endpoint()`."
                )
            decorated = fn
        else:
            signature = nest.map_structure(_tensor_spec, input_signature)
            if not isinstance(signature, (list, tuple)):
                signature = [signature]
            python_function = fn.python_function if isinstance(fn, Function) else fn
            decorated = Function(python_function, name, input_signature=list(signature))
            self._endpoint_signatures[name] = signature
        setattr(self._artifact, name, decorated)
        self._endpoint_names.append(name)
        return decorated

    def track_and_add_endpoint(self, name: str, resource, input_signature, **kwargs):
        """`track` then `add_endpoint` of ``resource.__call__``."""
        self.track(resource)
        return self.add_endpoint(name, resource.__call__, input_signature, **kwargs)

    def add_variable_collection(self, name: str, variables) -> None:
        """Saves ``variables`` (a list, tuple or set of Variables) as the reloaded
        artifact's attribute ``name``.

        Raises:
            ValueError: not a list, tuple or set, or an element that is not a Variable.
        """
        if not isinstance(variables, (list, tuple, set)):
            raise ValueError(
                "Expected `variables` to be a list/tuple/set. Received instead object of type "
                f"'{type(variables)}'."
            )
        if not all(isinstance(v, Variable) for v in variables):
            raise ValueError(
                "Expected all elements in `variables` to be `tf.Variable` instances. Found "
                f"instead the following types: {list({type(v) for v in variables})}"
            )
        setattr(self._artifact, name, list(variables))

    def write_out(self, filepath, options=None, verbose: bool = True) -> None:
        """Writes the saved model to the directory ``filepath`` (replaced whole): every
        endpoint, also the first as the signature ``"serving_default"``; prints them with
        their signatures when ``verbose``.

        Raises:
            ValueError: no endpoint was added.
        """
        from ..io.saved_model import save
        from .io_utils import print_msg

        if not self._endpoint_names:
            raise ValueError("No endpoints have been set yet. Call add_endpoint().")
        signatures = {name: getattr(self._artifact, name) for name in self._endpoint_names}
        if "serving_default" not in signatures:
            signatures["serving_default"] = signatures[self._endpoint_names[0]]
        save(self._artifact, filepath, signatures=signatures, options=options)
        if verbose:
            endpoints = "\n\n".join(self._describe(name) for name in self._endpoint_names)
            print_msg(
                f"Saved artifact at '{filepath}'. The following endpoints are available:\n\n"
                f"{endpoints}"
            )

    def _describe(self, name: str) -> str:
        fn = getattr(self._artifact, name)
        signature = self._endpoint_signatures.get(name)
        if signature is None:
            text = fn.pretty_printed_concrete_signatures().split("\n")
            return "\n".join([f"* Endpoint '{name}'", *text[1:]])
        args = "\n".join(
            f"  args_{k} (POSITIONAL_ONLY): {spec!r}" for k, spec in enumerate(signature)
        )
        return f"* Endpoint '{name}'\n{args}"


def _check_kwargs(kwargs: dict) -> None:
    if "jax2tf_kwargs" in kwargs or "is_static" in kwargs:
        raise ValueError(
            "'jax2tf_kwargs' and 'is_static' are only supported with the jax backend. "
            "Current backend: eagerkernel"
        )
    if kwargs:
        raise TypeError(f"ExportArchive: unexpected keyword arguments {sorted(kwargs)}.")


def _is_string_dtype(dtype) -> bool:
    try:
        return dtype is not None and dtypes.as_dtype(dtype) == dtypes.string
    except (TypeError, ValueError):
        return False


def input_signature_of(model) -> list:
    """The input signature of a built model, the batch open (Keras's
    ``get_input_signature``): a Functional model's input structure as one argument, a
    Sequential's input, a subclassed model's first build shape.

    Raises:
        ValueError: a model that is not built, or a subclassed one never called.
    """
    from .models import Model, Sequential

    if not isinstance(model, Model):
        raise TypeError(
            f"The model must be a `keras.Model`. Received: model={model} of the type {type(model)}"
        )
    if not model.built:
        raise ValueError(
            "The model provided has not yet been built. It must be built before export."
        )
    structure = getattr(model, "_input_struct", None)
    if structure is not None:  # Functional
        return [nest.map_structure(_tensor_spec, structure)]
    if isinstance(model, Sequential) and model.inputs:
        return [_tensor_spec(t) for t in model.inputs]
    shape = getattr(model, "_build_input_shape", None)
    if shape is None:
        raise ValueError(
            "The model provided has never called. It must be called at least once before export."
        )
    dtype = dtypes.as_dtype(getattr(model, "input_dtype", None) or model.compute_dtype)
    if _is_string_dtype(getattr(model, "_build_input_dtype", None)):
        # Keras builds a Sequential on its first layer's dtype, "string" for TextVectorization
        # and StringLookup: a model called on strings is served strings
        dtype = dtypes.string

    def spec(s):
        if isinstance(s, dict):
            return {k: spec(v) for k, v in s.items()}
        if isinstance(s, (list, tuple)) and not all(d is None or isinstance(d, int) for d in s):
            return type(s)(spec(v) for v in s)
        return TensorSpec((None, *tuple(s)[1:]), dtype)

    return [spec(shape)]


def export_saved_model(model, filepath, verbose=None, input_signature=None, **kwargs) -> None:
    """``model.export(filepath, format="tf_saved_model")``: the model's call (inference
    mode) as the endpoint ``"serve"`` (follows Keras's ``export_saved_model``)."""
    archive = ExportArchive()
    if input_signature is None:
        input_signature = input_signature_of(model)
    archive.track_and_add_endpoint(DEFAULT_ENDPOINT_NAME, model, input_signature, **kwargs)
    archive.write_out(filepath, verbose=True if verbose is None else verbose)


def export_model(
    model, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs
):
    """`Model.export`: checks ``format`` (Keras's names) and exports."""
    if format not in FORMATS:
        raise ValueError(f"Unrecognized format={format}. Supported formats are: {list(FORMATS)}.")
    if format != "tf_saved_model":
        raise NotImplementedError(
            f"Model.export: format={format!r} needs a converter this runtime does not have; "
            "format='tf_saved_model' writes an eagerkernel saved model (ek.saved_model.load)."
        )
    export_saved_model(model, filepath, verbose, input_signature, **kwargs)
