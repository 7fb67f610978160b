"""`keras.utils.FeatureSpace`: one object that indexes, normalizes, discretizes, hashes and
crosses the columns of a structured (tabular) data set and encodes them as one vector per
sample, or as a dict of encoded features (follows Keras 3's
``keras/src/layers/preprocessing/feature_space.py``)."""

from __future__ import annotations

import numpy as np

from .. import nest
from ..core.tensor import Tensor, to_tensor
from . import layers
from .layers.base import Layer, unique_name

__all__ = ["Cross", "Feature", "FeatureSpace"]

_FEATURE_MODES = ("int", "one_hot", "float")


class Cross:
    """A feature cross: the values of ``feature_names`` hashed together into
    ``crossing_dim`` bins by a `HashedCrossing` layer named ``"a_X_b"``.

    Args:
        feature_names: the names (two or more) of categorical features to cross.
        crossing_dim: the number of hash bins.
        output_mode: ``"one_hot"`` (default; one vector of ``crossing_dim``) or ``"int"``.

    Raises:
        ValueError: another ``output_mode``.
    """

    def __init__(self, feature_names, crossing_dim, output_mode="one_hot"):
        if output_mode not in {"int", "one_hot"}:
            raise ValueError(
                "Invalid value for argument `output_mode`. Expected one of {'int', 'one_hot'}. "
                f"Received: output_mode={output_mode}"
            )
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self) -> str:
        return "_X_".join(self.feature_names)

    def get_config(self) -> dict:
        return {
            "feature_names": self.feature_names,
            "crossing_dim": self.crossing_dim,
            "output_mode": self.output_mode,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Feature:
    """One feature of a `FeatureSpace`: the dtype of its `Input`, the layer that preprocesses
    it, and how its result is encoded (``"int"``, ``"one_hot"`` or ``"float"``).

    Raises:
        ValueError: another ``output_mode``.
    """

    def __init__(self, dtype, preprocessor, output_mode):
        from .saving import deserialize_keras_object

        if output_mode not in _FEATURE_MODES:
            raise ValueError(
                "Invalid value for argument `output_mode`. Expected one of "
                f"{{'int', 'one_hot', 'float'}}. Received: output_mode={output_mode}"
            )
        self.dtype = dtype
        if isinstance(preprocessor, dict):
            preprocessor = deserialize_keras_object(preprocessor)
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self) -> dict:
        from .saving import serialize_keras_object

        return {
            "dtype": self.dtype,
            "preprocessor": serialize_keras_object(self.preprocessor),
            "output_mode": self.output_mode,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class _Identity(Layer):
    """The preprocessor of a ``"float"`` feature: its input, as it is."""

    def call(self, inputs):
        return inputs


def _convert(x):
    """A feature's values as a Tensor (lists, NumPy arrays and pandas columns too)."""
    if isinstance(x, Tensor) or hasattr(x, "_keras_history"):
        return x
    if not isinstance(x, (list, tuple, int, float, str, bytes)):
        x = np.asarray(x)
    return to_tensor(x)


class FeatureSpace(Layer):
    """One-stop preprocessing and encoding of structured data (follows
    `keras.utils.FeatureSpace`).

    Args:
        features: ``{name: type}``, the type a string (``"float"``, ``"float_normalized"``,
            ``"float_rescaled"``, ``"float_discretized"``, ``"integer_categorical"``,
            ``"string_categorical"``, ``"integer_hashed"``, ``"string_hashed"``, with the
            defaults below) or a `Feature` from one of the class methods
            (``FeatureSpace.integer_categorical(num_oov_indices=0)``...).
        output_mode: ``"concat"`` (default; one float32 vector per sample, the features in
            sorted name order, then the crosses in sorted name order) or ``"dict"``.
        crosses: tuples of feature names, or `Cross` objects from `FeatureSpace.cross`;
            each is hashed into ``crossing_dim`` bins.
        crossing_dim: the default number of bins of a cross (32).
        hashing_dim: the number of bins of a hashed feature given by name (32).
        num_discretization_bins: the bins of a ``"float_discretized"`` feature given by
            name (32).

    Call `adapt` on a Dataset of feature dicts (batched or not, no labels) before using it;
    then call it on a dict of raw values (a batch, or one sample of scalars: then the
    batch axis is dropped from the result), or take `get_inputs` and
    `get_encoded_features` to build a functional model.

    Raises:
        ValueError: no features, an unknown feature type, a cross naming an unknown
            feature, another ``output_mode``; calling or `get_encoded_features` before
            `adapt`; a ``one_hot`` feature whose preprocessor does not give integers; a
            feature left unencoded (integer or string) in ``"concat"`` mode.

    >>> fs = ek.keras.utils.FeatureSpace({"c": "integer_categorical", "x": "float"})
    >>> fs.adapt(ek.data.Dataset.from_tensor_slices({"c": [1, 2, 2], "x": [0.5, 1.0, 2.0]}))
    >>> fs({"c": [2, 7], "x": [3.0, 4.0]}).numpy()
    array([[0., 1., 0., 3.],
           [1., 0., 0., 4.]], dtype=float32)
    """

    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode="one_hot") -> Cross:
        """A `Cross` of ``feature_names`` hashed into ``crossing_dim`` bins."""
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode) -> Feature:
        """A feature of ``dtype`` preprocessed by any layer ``preprocessor``."""
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None) -> Feature:
        """Float values passed as they are (float32)."""
        name = name or unique_name("float")
        return Feature("float32", _Identity(dtype="float32", name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None) -> Feature:
        """Float values times ``scale`` plus ``offset`` (a `Rescaling` layer)."""
        name = name or unique_name("float_rescaled")
        layer = layers.Rescaling(scale=scale, offset=offset, name=f"{name}_preprocessor")
        return Feature("float32", layer, "float")

    @classmethod
    def float_normalized(cls, name=None) -> Feature:
        """Float values standardized with the mean and variance `adapt` learns."""
        name = name or unique_name("float_normalized")
        layer = layers.Normalization(axis=-1, name=f"{name}_preprocessor")
        return Feature("float32", layer, "float")

    @classmethod
    def float_discretized(
        cls, num_bins, bin_boundaries=None, output_mode="one_hot", name=None
    ) -> Feature:
        """Float values bucketed into ``num_bins`` quantile bins (a `Discretization`)."""
        name = name or unique_name("float_discretized")
        if bin_boundaries is not None:  # eagerkernel's Discretization takes one of the two
            layer = layers.Discretization(
                bin_boundaries=bin_boundaries, name=f"{name}_preprocessor"
            )
            layer.num_bins = len(bin_boundaries) + 1
        else:
            layer = layers.Discretization(num_bins=num_bins, name=f"{name}_preprocessor")
        return Feature("float32", layer, output_mode)

    @classmethod
    def integer_categorical(
        cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot", name=None
    ) -> Feature:
        """Integer values indexed by an `IntegerLookup` (int32 inputs)."""
        lookup = (layers.IntegerLookup, "int32", "integer_categorical")
        return _categorical(*lookup, max_tokens, num_oov_indices, output_mode, name)

    @classmethod
    def string_categorical(
        cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot", name=None
    ) -> Feature:
        """String values indexed by a `StringLookup`."""
        lookup = (layers.StringLookup, "string", "string_categorical")
        return _categorical(*lookup, max_tokens, num_oov_indices, output_mode, name)

    @classmethod
    def string_hashed(cls, num_bins, output_mode="one_hot", name=None) -> Feature:
        """String values hashed into ``num_bins`` bins (a `Hashing` layer)."""
        name = name or unique_name("string_hashed")
        layer = layers.Hashing(name=f"{name}_preprocessor", num_bins=num_bins)
        return Feature("string", layer, output_mode)

    @classmethod
    def integer_hashed(cls, num_bins, output_mode="one_hot", name=None) -> Feature:
        """Integer values hashed into ``num_bins`` bins (a `Hashing` layer)."""
        name = name or unique_name("integer_hashed")
        layer = layers.Hashing(name=f"{name}_preprocessor", num_bins=num_bins)
        return Feature("int32", layer, output_mode)

    def __init__(
        self,
        features,
        output_mode="concat",
        crosses=None,
        crossing_dim=32,
        hashing_dim=32,
        num_discretization_bins=32,
        name=None,
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        if not features:
            raise ValueError("The `features` argument cannot be None or empty.")
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.features = {n: self._standardize_feature(n, v) for n, v in features.items()}
        self.crosses = [self._standardize_cross(c, set(features)) for c in crosses or ()]
        self.crosses_by_name = {cross.name: cross for cross in self.crosses}
        if output_mode not in {"dict", "concat"}:
            raise ValueError(
                "Invalid value for argument `output_mode`. Expected one of "
                f"{{'dict', 'concat'}}. Received: output_mode={output_mode}"
            )
        self.output_mode = output_mode
        self.inputs = {
            n: layers.Input(shape=(1,), dtype=f.dtype, name=n) for n, f in self.features.items()
        }
        self.preprocessors = {n: f.preprocessor for n, f in self.features.items()}
        # a TextVectorization given its vocabulary is not adapted again (as Keras)
        self._preset = {
            n
            for n, p in self.preprocessors.items()
            if isinstance(p, layers.TextVectorization)
            and p.get_vocabulary(include_special_tokens=False)
        }
        self.encoded_features = None
        self.crossers = {
            c.name: layers.HashedCrossing(c.crossing_dim, name=c.name) for c in self.crosses
        }
        self.one_hot_encoders = {}
        self._is_adapted = False
        self._sublayers_built = False
        self._feature_order = None  # sorted feature names, then sorted cross names

    def _standardize_feature(self, name, feature) -> Feature:
        from .saving import deserialize_keras_object

        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict):
            return deserialize_keras_object(feature, {"Feature": Feature})
        by_name = {
            "float": lambda: self.float(name=name),
            "float_normalized": lambda: self.float_normalized(name=name),
            "float_rescaled": lambda: self.float_rescaled(name=name),
            "float_discretized": lambda: self.float_discretized(
                name=name, num_bins=self.num_discretization_bins
            ),
            "integer_categorical": lambda: self.integer_categorical(name=name),
            "string_categorical": lambda: self.string_categorical(name=name),
            "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=name),
            "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=name),
        }
        if not isinstance(feature, str) or feature not in by_name:
            raise ValueError(f"Invalid feature type: {feature}")
        return by_name[feature]()

    def _standardize_cross(self, cross, feature_set) -> Cross:
        from .saving import deserialize_keras_object

        if isinstance(cross, dict):
            cross = deserialize_keras_object(cross, {"Cross": Cross})
        if isinstance(cross, Cross):
            return cross
        if not self.crossing_dim:
            raise ValueError(
                "When specifying `crosses`, the argument `crossing_dim` (dimensionality of "
                "the crossing space) should be specified as well."
            )
        if any(key not in feature_set for key in cross):
            raise ValueError(
                "All features referenced in the `crosses` argument should be present in the "
                f"`features` dict. Received unknown features: {cross}"
            )
        return Cross(cross, crossing_dim=self.crossing_dim)

    def _adaptable(self) -> list:
        names = []
        for name, layer in self.preprocessors.items():
            if isinstance(layer, layers.Normalization) and layer.input_mean is not None:
                continue
            if name in self._preset:
                continue
            if hasattr(layer, "adapt"):
                names.append(name)
        return names

    def adapt(self, dataset) -> None:
        """Adapts each feature's preprocessor (vocabularies, means and variances, bin
        boundaries) to ``dataset``: a Dataset of feature dicts (batched or not) or a dict
        of arrays.

        Raises:
            ValueError: ``dataset`` is neither.
        """
        from ..data import Dataset

        if not isinstance(dataset, Dataset):
            if not isinstance(dataset, dict):
                raise ValueError(
                    "`adapt()` can only be called on a tf.data.Dataset or a dict of "
                    f"arrays/lists. Received instead: {dataset} (of type {type(dataset)})"
                )
            dataset = Dataset.from_tensor_slices(dataset)
        for name in self._adaptable():
            feature_ds = dataset.map(lambda x, name=name: x[name])
            rank = len(next(iter(feature_ds)).shape)
            if rank == 0:  # unbatched scalars: batch them
                feature_ds = feature_ds.batch(32)
            if rank in (0, 1):  # one column, so statistics reduce over the batch
                feature_ds = feature_ds.map(lambda x: x[..., None])
            self.preprocessors[name].adapt(feature_ds)
        self._is_adapted = True
        self.get_encoded_features()
        self.built = True
        self._sublayers_built = True

    def get_inputs(self) -> dict:
        """``{name: Input}``, one `Input` of shape ``(None, 1)`` per feature."""
        self._check_if_built()
        return self.inputs

    def get_encoded_features(self):
        """The symbolic encoding of `get_inputs` (one tensor, or a dict in ``"dict"`` mode).

        Raises:
            ValueError: `adapt` was not called and a preprocessor needs it.
        """
        self._check_if_adapted()
        if self.encoded_features is None:
            preprocessed = self._preprocess_features(self.inputs)
            crossed = self._cross_features(preprocessed)
            self.encoded_features = self._merge_features(preprocessed, crossed)
        return self.encoded_features

    def _preprocess_features(self, features) -> dict:
        return {name: self.preprocessors[name](features[name]) for name in features}

    def _cross_features(self, features) -> dict:
        return {
            c.name: self.crossers[c.name]([features[n] for n in c.feature_names])
            for c in self.crosses
        }

    def _cardinality(self, name, dtype) -> int:
        layer = self.preprocessors.get(name) or self.crossers.get(name)
        if not dtype.startswith("int"):
            raise ValueError(
                f"Feature '{name}' has `output_mode='one_hot'`. Thus its preprocessor should "
                f"return an integer dtype. Instead it returns a {dtype} dtype."
            )
        if isinstance(layer, (layers.IntegerLookup, layers.StringLookup)):
            return layer.vocabulary_size()
        if isinstance(layer, layers.CategoryEncoding):
            return layer.num_tokens
        if isinstance(layer, (layers.Discretization, layers.HashedCrossing, layers.Hashing)):
            return layer.num_bins
        raise ValueError(
            f"Feature '{name}' has `output_mode='one_hot'`. However it isn't a standard "
            "feature and the dimensionality of its output space is not known, thus it cannot "
            "be one-hot encoded. Try using `output_mode='int'`."
        )

    def _merge_features(self, preprocessed, crossed):
        if self._feature_order is None:
            self._feature_order = sorted(preprocessed) + sorted(crossed)
        values = {**preprocessed, **crossed}
        building = not self._sublayers_built
        encoded = {}
        for name in self._feature_order:
            feature = values[name]
            spec = self.features.get(name) or self.crosses_by_name[name]
            if building and spec.output_mode == "one_hot":
                dtype = str(nest.flatten(feature)[0].dtype.name)
                depth = self._cardinality(name, dtype)
                self.one_hot_encoders[name] = layers.CategoryEncoding(
                    num_tokens=depth, output_mode="multi_hot"
                )
            encoder = self.one_hot_encoders.get(name)
            if encoder is not None:
                feature = encoder(feature)
            if building and self.output_mode == "concat":
                dtype = str(feature.dtype.name)
                if dtype.startswith("int") or dtype == "string":
                    raise ValueError(
                        f"Cannot concatenate features because feature '{name}' has not been "
                        f"encoded (it has dtype {dtype}). Consider using `output_mode='dict'`."
                    )
            encoded[name] = feature
        if self.output_mode == "dict":
            return encoded
        parts = [encoded[name] for name in self._feature_order]
        if any(hasattr(p, "_keras_history") for p in parts):
            return layers.Concatenate(axis=-1)(parts)
        from .ops import concatenate  # Keras's dtype promotion, as its TFDConcat

        return concatenate(parts, axis=-1)

    def _check_if_adapted(self) -> None:
        if not self._is_adapted:
            if self._adaptable():
                raise ValueError(
                    "You need to call `.adapt(dataset)` on the FeatureSpace before you can "
                    "start using it."
                )
            self._is_adapted = True

    def _check_if_built(self) -> None:
        if not self._sublayers_built:
            self._check_if_adapted()
            self.get_encoded_features()
            self._sublayers_built = True

    def __call__(self, data):
        """The encoding of ``data``, a dict of raw feature values: a batch (rank 1 or
        ``(batch, 1)``), or one sample of scalars (the result then has no batch axis).

        Raises:
            ValueError: ``data`` is not a dict, or the FeatureSpace was not adapted.
        """
        self._check_if_built()
        if not isinstance(data, dict):
            raise ValueError(
                "A FeatureSpace can only be called with a dict. "
                f"Received: data={data} (of type {type(data)}"
            )
        data = {key: _convert(value) for key, value in data.items()}
        rebatched = False
        for name, x in data.items():
            if len(x.shape) == 0:
                data[name] = x[None, None]
                rebatched = True
            elif len(x.shape) == 1:
                data[name] = x[:, None]
        preprocessed = self._preprocess_features(data)
        crossed = self._cross_features(preprocessed)
        merged = self._merge_features(preprocessed, crossed)
        if rebatched:
            if self.output_mode == "concat":
                if merged.shape[0] != 1:
                    raise ValueError(
                        "Expected rebatched data to have batch size 1. "
                        f"Received: shape={merged.shape}"
                    )
                merged = merged[0]
            else:
                merged = {
                    k: v[0] if len(v.shape) == 2 and v.shape[0] == 1 else v
                    for k, v in merged.items()
                }
        return merged

    def get_config(self) -> dict:
        from .saving import serialize_keras_object

        return {
            "features": serialize_keras_object(self.features),
            "output_mode": self.output_mode,
            "crosses": serialize_keras_object(self.crosses),
            "crossing_dim": self.crossing_dim,
            "hashing_dim": self.hashing_dim,
            "num_discretization_bins": self.num_discretization_bins,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def get_build_config(self) -> dict:
        """Each preprocessor's build config under ``"features"`` (Keras 3 writes the dict
        itself); ``"input_shape"`` makes `load_model` call `build_from_config`."""
        features = {}
        for name, feature in self.features.items():
            layer = feature.preprocessor
            # an adapted layer may not record its input shape; its inputs are (batch, 1)
            fallback = {"input_shape": [None, 1]} if layer.built else None
            features[name] = layer.get_build_config() or fallback
        return {"input_shape": [None, 1], "features": features}

    def build_from_config(self, config) -> None:
        """Builds the preprocessors a loaded file describes (their state is loaded next)."""
        for name, build in (config.get("features") or {}).items():
            layer = self.features[name].preprocessor
            if not layer.built and build:
                layer.build_from_config(build)
        self._is_adapted = True

    def save(self, filepath) -> None:
        """Writes the FeatureSpace (its config and its preprocessors' state) to a ``.keras``
        file; `keras.saving.load_model` reads it back."""
        from .saving import save_model

        save_model(self, filepath)


def _categorical(layer_cls, dtype, kind, max_tokens, num_oov_indices, output_mode, name):
    """A `Feature` of ``dtype`` indexed by a ``layer_cls`` lookup named ``<name>_preprocessor``
    (``name`` default: a unique ``kind``)."""
    name = name or unique_name(kind)
    layer = layer_cls(
        name=f"{name}_preprocessor", max_tokens=max_tokens, num_oov_indices=num_oov_indices
    )
    return Feature(dtype, layer, output_mode)
