"""Lookup and text preprocessing layers (follow Keras 3's `StringLookup`, `IntegerLookup`,
`TextVectorization`, `CategoryEncoding` and `Discretization`; `Hashing` and `HashedCrossing`
are in ``hashing.py``).

A lookup layer maps tokens to indices. With ``output_mode="int"`` the index space is, in
order: the mask token (index 0, only when ``mask_token`` is set; the other modes drop it),
``num_oov_indices`` indices for out-of-vocabulary tokens, then the vocabulary. `adapt` builds
the vocabulary from data: tokens sorted by decreasing frequency, ties by decreasing token (as
Keras 3 sorts them). The other output modes (``"one_hot"``, ``"multi_hot"``, ``"count"``,
``"tf_idf"``) give one vector of ``vocabulary_size()`` entries per sample: int64, and float32
for ``"tf_idf"`` (as Keras 3's layers give eagerly). These layers compute in NumPy on the host
(strings live there) and have no trainable weights; their outputs carry no gradient, as in
Keras.
"""

from __future__ import annotations

import collections
import re
import string as _string

import numpy as np

from ...core.errors import InvalidArgumentError
from ...core.tensor import Tensor, to_tensor
from ...ragged.ragged_tensor import RaggedTensor
from .base import Layer
from .categorical import (
    encode_categorical,
    host_array,
    host_tensor,
    iter_batches,
)
from .discretization import Discretization
from .stand_in import in_stand_in_call

__all__ = [
    "CategoryEncoding",
    "Discretization",
    "IntegerLookup",
    "StringLookup",
    "TextVectorization",
]

_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
# Keras 2's names, which Keras 3 still takes: "binary" is multi_hot, "tf-idf" tf_idf.
_MODE_ALIASES = {"binary": "multi_hot", "tf-idf": "tf_idf"}
# Keras's DEFAULT_STRIP_REGEX: ASCII punctuation.
_ASCII_LOWER = str.maketrans(_string.ascii_uppercase, _string.ascii_lowercase)
_PUNCTUATION = re.compile("[" + re.escape(_string.punctuation) + "]")


def _take_keras_config_keys(name: str, kwargs: dict) -> None:
    """Removes from ``kwargs`` the keys Keras 3's lookup configs hold besides the arguments
    taken here, so that its configs load: ``vocabulary_size`` (derived), and ``encoding``,
    ``oov_method``, ``salt`` at their defaults (others raise NotImplementedError)."""
    kwargs.pop("vocabulary_size", None)
    for key, default in (("encoding", "utf-8"), ("oov_method", "floormod"), ("salt", None)):
        value = kwargs.pop(key, default)
        if value != default:
            raise NotImplementedError(
                f"{name}: only {key}={default!r} is supported. Received: {key}={value!r}"
            )


class _IndexLookup(Layer):
    """The shared machinery of `StringLookup` and `IntegerLookup`."""

    _token_kind = "str"
    _default_oov = "[UNK]"

    def __init__(
        self,
        max_tokens=None,
        num_oov_indices=1,
        mask_token=None,
        oov_token=None,
        vocabulary=None,
        idf_weights=None,
        invert=False,
        output_mode="int",
        pad_to_max_tokens=False,
        sparse=False,
        vocabulary_dtype=None,
        **kwargs,
    ):
        name = type(self).__name__
        output_mode = _MODE_ALIASES.get(output_mode, output_mode)
        if output_mode not in _MODES:
            raise ValueError(
                f"{name}: output_mode must be one of {list(_MODES)}. Received: "
                f"output_mode={output_mode!r}"
            )
        if max_tokens is not None and int(max_tokens) <= 1:
            raise ValueError(f"{name}: max_tokens must be > 1. Received: max_tokens={max_tokens}")
        if int(num_oov_indices) < 0:
            raise ValueError(
                f"{name}: num_oov_indices must be >= 0. Received: num_oov_indices={num_oov_indices}"
            )
        if invert and output_mode != "int":
            raise ValueError(f"{name}: invert=True needs output_mode='int'.")
        if sparse:
            raise NotImplementedError(f"{name}: sparse=True is not supported.")
        if output_mode == "tf_idf" and idf_weights is None and vocabulary is not None:
            raise ValueError(f"{name}: output_mode='tf_idf' with a vocabulary needs idf_weights.")
        _take_keras_config_keys(name, kwargs)
        super().__init__(**kwargs)
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.num_oov_indices = int(num_oov_indices)
        self.mask_token = mask_token
        self.oov_token = self._default_oov if oov_token is None else oov_token
        self.invert = bool(invert)
        self.output_mode = output_mode
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        if self.pad_to_max_tokens and self.max_tokens is None:
            raise ValueError(
                "If pad_to_max_tokens is True, must set `max_tokens`. Received: "
                f"max_tokens={max_tokens}"
            )
        self._vocab: list = []
        self._index: dict = {}
        self._idf = None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # -- vocabulary ---------------------------------------------------------------------------
    def _token(self, t):
        return t

    def _specials(self) -> list:
        # Keras 3: only "int" output gives the mask token an index; the encoded modes drop it
        masked = self.mask_token is not None and self.output_mode == "int"
        head = [self._token(self.mask_token)] if masked else []
        return head + [self._token(self.oov_token)] * self.num_oov_indices

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        """Sets the vocabulary (a list, array, or a text file with one token per line) and,
        for ``tf_idf``, the idf weights (one per vocabulary token).

        Raises:
            ValueError: repeated tokens, a vocabulary that holds the mask token (or the OOV
                token, with ``invert``), more tokens than ``max_tokens`` allows (a list; a file
                is not checked), idf weights of another length, a file with ``tf_idf``.
            InvalidArgumentError: an empty line in a vocabulary file (as TensorFlow).
        """
        self._install_vocabulary(vocabulary, idf_weights, check_size=True)

    def _install_vocabulary(self, vocabulary, idf_weights, check_size: bool) -> None:
        name = type(self).__name__
        if isinstance(vocabulary, str) and self._token_kind == "str" and "\n" not in vocabulary:
            if self.output_mode == "tf_idf":
                raise ValueError(
                    f"{name}: output_mode `'tf_idf'` does not support loading a vocabulary "
                    f"from file. Received: vocabulary={vocabulary!r}"
                )
            path = vocabulary
            with open(path, encoding="utf-8") as f:
                vocabulary = f.read().splitlines()
            if "" in vocabulary:  # as TF's InitializeTableFromTextFile
                raise InvalidArgumentError(
                    f"{name}: invalid content in the vocabulary file {path!r}: empty line "
                    f"found at position {vocabulary.index('')}."
                )
            check_size = False  # Keras does not check a file's size against max_tokens
        tokens = [
            self._token(t) for t in np.asarray(host_array(vocabulary), dtype=object).reshape(-1)
        ]
        specials = self._specials()
        found = bool(specials) and tokens[: len(specials)] == specials
        if found:
            tokens = tokens[len(specials) :]  # a vocabulary from get_vocabulary()
        if len(set(tokens)) != len(tokens):
            dup = next(t for t, c in collections.Counter(tokens).items() if c > 1)
            raise ValueError(f"{name}: the vocabulary holds {self._public(dup)!r} more than once.")
        # Keras refuses the mask token anywhere else, the OOV token only when inverting
        # (a lookup never maps to it otherwise)
        reserved = set() if self.mask_token is None else {self._token(self.mask_token)}
        if self.invert:
            reserved.add(self._token(self.oov_token))
        for special in reserved:
            if special in tokens:
                raise ValueError(
                    f"{name}: the vocabulary holds the reserved token {self._public(special)!r}."
                )
        if check_size and self.max_tokens and len(tokens) + len(specials) > self.max_tokens:
            raise ValueError(
                f"{name}: {len(tokens)} tokens and {len(specials)} special ones exceed "
                f"max_tokens={self.max_tokens}."
            )
        self._vocab = tokens
        offset = len(specials)
        self._index = {t: offset + i for i, t in enumerate(tokens)}
        if idf_weights is not None:
            idf = np.asarray(host_array(idf_weights), np.float32).reshape(-1)
            # as Keras: one weight per given entry, the special tokens' too when given
            if idf.size != len(tokens) + (offset if found else 0):
                raise ValueError(
                    f"{name}: {idf.size} idf_weights for {len(tokens)} vocabulary tokens."
                )
            mean = float(idf.mean()) if idf.size else 0.0
            pad = np.full(0 if found else offset, mean, np.float32)
            self._idf = np.concatenate([pad, idf])
        self.built = True

    def get_vocabulary(self, include_special_tokens=True) -> list:
        """The tokens by index (the mask and OOV tokens first, unless excluded)."""
        specials = self._specials() if include_special_tokens else []
        return [self._public(t) for t in specials + self._vocab]

    def _public(self, t):
        return t

    def vocabulary_size(self) -> int:
        """The size of the index space: special tokens plus the vocabulary."""
        return len(self._specials()) + len(self._vocab)

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Builds the vocabulary from ``data`` (arrays, Tensors or a Dataset of batches):
        tokens by decreasing frequency, ties by decreasing token (Keras 3's order), at most
        ``max_tokens`` entries with the special ones; ``tf_idf`` also learns idf weights."""
        counts: collections.Counter = collections.Counter()
        doc_freq: collections.Counter = collections.Counter()
        docs = 0
        # Keras drops the mask and OOV tokens from the counts (an empty string is a token
        # unless it is the mask)
        dropped = {self._token(self.oov_token)}
        if self.mask_token is not None:
            dropped.add(self._token(self.mask_token))
        batches = data.docs if isinstance(data, _Docs) else iter_batches(data, steps)
        for batch in batches:
            if isinstance(batch, RaggedTensor):  # one document per row, of any length
                rows = [np.asarray(r, dtype=object) for r in batch.to_list()]
                arr = None
            else:
                arr = np.asarray(batch, dtype=object)
                rows = [arr] if arr.ndim <= 1 else arr.reshape(-1, arr.shape[-1])
            for row in rows:
                tokens = [self._token(t) for t in np.asarray(row, dtype=object).reshape(-1)]
                tokens = [t for t in tokens if t not in dropped]
                counts.update(tokens)
                doc_freq.update(set(tokens))
                docs += 1
        ordered = sorted(counts, key=lambda t: (counts[t], t), reverse=True)
        room = None if self.max_tokens is None else self.max_tokens - len(self._specials())
        vocab = ordered if room is None else ordered[:room]
        idf = None
        if self.output_mode == "tf_idf":
            idf = np.log(1 + docs / (1 + np.array([doc_freq[t] for t in vocab], np.float64)))
        # Keras slices the sorted tokens to max_tokens minus the special ones (even when
        # that is negative) and does not check the size again
        self._install_vocabulary([self._public(t) for t in vocab], idf, check_size=False)

    # -- call -----------------------------------------------------------------------------------
    def _lookup(self, arr: np.ndarray) -> np.ndarray:
        mask = None if self.mask_token is None else self._token(self.mask_token)
        n_mask = 1 if mask is not None and self.output_mode == "int" else 0
        flat = np.asarray(arr, dtype=object).reshape(-1)
        out = np.empty(flat.shape, np.int64)
        for i, t in enumerate(flat):
            t = self._token(t)
            j = self._index.get(t)
            if j is not None:
                out[i] = j
            elif mask is not None and t == mask:
                out[i] = 0 if n_mask else -1  # -1: dropped by the encoded modes
            elif self.num_oov_indices == 0 and in_stand_in_call():
                out[i] = 0  # a shape-inference call: only the shape and dtype count
            elif self.num_oov_indices == 0:  # TF's lookup assertion: InvalidArgumentError
                raise InvalidArgumentError(
                    f"{type(self).__name__}: {self._public(t)!r} is not in the vocabulary and "
                    "num_oov_indices=0."
                )
            else:
                out[i] = n_mask + self._oov_bucket(t)
        return out.reshape(np.shape(arr))

    def _oov_bucket(self, t) -> int:
        return 0

    def call(self, inputs):
        if isinstance(inputs, RaggedTensor):  # Keras 3 on TensorFlow takes ragged batches
            return self._call_ragged(inputs)
        arr = host_array(inputs)
        if self.invert:
            return self._invert(arr)
        idx = self._lookup(arr)
        if self.output_mode == "int":
            return host_tensor(idx)
        depth = self.vocabulary_size()
        if self.pad_to_max_tokens and self.max_tokens is not None:
            depth = self.max_tokens
        out = encode_categorical(
            idx, depth, self.output_mode, self._idf_padded(depth), dtype=np.int64
        )
        return host_tensor(out)

    def _call_ragged(self, inputs: RaggedTensor):
        """A ragged batch: indices (or inverted tokens) as a RaggedTensor of the same rows;
        the encoded modes one dense vector per row, as Keras 3 on TensorFlow gives."""
        if self.output_mode == "int" or self.invert:
            return inputs.with_flat_values(self.call(inputs.flat_values))
        rows = [self.call(np.asarray(r, dtype=object)[None, :]) for r in inputs.to_list()]
        return host_tensor(np.concatenate([np.asarray(r) for r in rows], axis=0))

    def _idf_padded(self, depth):
        if self._idf is None:
            return None
        return np.pad(self._idf, (0, depth - self._idf.size))

    def _invert(self, arr):
        table = self.get_vocabulary()
        flat = np.asarray(arr, np.int64).reshape(-1)
        oov = self._public(self._token(self.oov_token))
        out = np.array(
            [table[i] if 0 <= i < len(table) else oov for i in flat], dtype=object
        ).reshape(np.shape(arr))
        return host_tensor(self._invert_array(out))

    def _invert_array(self, out):
        return out

    def compute_output_shape(self, input_shape) -> tuple:
        if self.output_mode == "int" or self.invert:
            return tuple(input_shape)
        depth = self.max_tokens if self.pad_to_max_tokens else self.vocabulary_size()
        shape = tuple(input_shape)
        if self.output_mode == "one_hot" and (len(shape) <= 1 or shape[-1] != 1):
            return (*shape, depth)
        return (*shape[:-1], depth)

    def compute_output_spec(self, inputs):
        """The output KerasTensor for a symbolic input: `compute_output_shape`'s shape and
        the dtype `call` gives (int64 indices and counts, float32 tf-idf, the vocabulary's
        dtype when inverting), without running the lookup on stand-in tokens (which may be
        out of a vocabulary with no OOV index)."""
        from ..keras_tensor import KerasTensor

        shape = self.compute_output_shape(tuple(inputs.shape))
        if self.invert:
            dtype = "string" if isinstance(self, StringLookup) else "int64"
        else:
            dtype = "int64" if self.output_mode == "int" else "float32"  # as Keras 3
        return KerasTensor(shape, dtype)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "max_tokens": self.max_tokens,
            "num_oov_indices": self.num_oov_indices,
            "mask_token": self.mask_token,
            "oov_token": self.oov_token,
            "vocabulary": self.get_vocabulary(include_special_tokens=False) or None,
            "idf_weights": None
            if self._idf is None
            else self._idf[len(self._specials()) :].tolist(),
            "invert": self.invert,
            "output_mode": self.output_mode,
            "pad_to_max_tokens": self.pad_to_max_tokens,
        }


class StringLookup(_IndexLookup):
    """Maps strings to integer indices (follows `tf.keras.layers.StringLookup`); see the
    module docstring for the index layout and output modes.

    Args:
        max_tokens: most entries, special tokens included (None: no limit).
        num_oov_indices: indices for unknown strings (default 1); with more than one, a
            string's is its FarmHash fingerprint modulo the count (needs pyfarmhash), as
            TensorFlow's.
        mask_token: a string mapped to 0 (None: no mask).
        oov_token: what `invert` gives for unknown indices (default ``"[UNK]"``).
        vocabulary: a list/array of strings, or a file with one per line.
        idf_weights: for ``output_mode="tf_idf"`` with a given vocabulary.
        invert: map indices back to strings.
        output_mode: ``"int"`` (default), ``"one_hot"``, ``"multi_hot"``, ``"count"``,
            ``"tf_idf"``. pad_to_max_tokens: vectors of ``max_tokens`` entries.

    Raises:
        ValueError: bad arguments or vocabularies (named). NotImplementedError: ``sparse``.

    >>> layer = ek.keras.layers.StringLookup(vocabulary=["a", "b", "c"])
    >>> layer(ek.constant([["a", "c"], ["d", "b"]])).numpy()
    array([[1, 3],
           [0, 2]])
    >>> layer.get_vocabulary()
    ['[UNK]', 'a', 'b', 'c']
    """

    def _token(self, t):
        if isinstance(t, str):
            return t.encode("utf-8")
        return bytes(t) if isinstance(t, (bytes, np.bytes_)) else str(t).encode("utf-8")

    def _public(self, t):
        return t.decode("utf-8") if isinstance(t, bytes) else t

    def _oov_bucket(self, t) -> int:
        if self.num_oov_indices == 1:
            return 0
        from ...ops.strings import to_hash_bucket_fast

        return int(to_hash_bucket_fast(to_tensor(np.array(t, dtype=object)), self.num_oov_indices))

    def _invert_array(self, out):
        return np.vectorize(
            lambda t: t.encode("utf-8") if isinstance(t, str) else t, otypes=[object]
        )(out)


class IntegerLookup(_IndexLookup):
    """Maps integers to contiguous indices (follows `tf.keras.layers.IntegerLookup`); see the
    module docstring. ``mask_token`` and ``oov_token`` are ints (default OOV token -1); with
    several OOV indices a value's is ``value mod num_oov_indices``.

    >>> layer = ek.keras.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
    >>> layer(ek.constant([[12, 1138, 42], [42, 1000, 36]])).numpy()
    array([[1, 3, 4],
           [4, 0, 2]])
    """

    _token_kind = "int"
    _default_oov = -1

    def _token(self, t):
        return int(t)

    def _oov_bucket(self, t) -> int:
        return int(t) % self.num_oov_indices

    def _invert_array(self, out):
        return out.astype(np.int64)


class TextVectorization(Layer):
    """Turns strings into token indices or vectors (follows
    `tf.keras.layers.TextVectorization`): standardize, split, optional n-grams, then a
    `StringLookup` with index 0 for padding and 1 for unknown tokens in ``"int"`` mode.

    Args:
        max_tokens: vocabulary size, the padding and OOV entries included.
        standardize: ``"lower_and_strip_punctuation"`` (default), ``"lower"``,
            ``"strip_punctuation"``, None or a callable on a string tensor.
        split: ``"whitespace"`` (default), ``"character"``, None or a callable.
        ngrams: None, an int n (1..n-grams) or a tuple of ints.
        output_mode: ``"int"`` (default), ``"multi_hot"``, ``"count"``, ``"tf_idf"``.
        output_sequence_length: ``"int"`` outputs padded or truncated to this length
            (default: the longest sequence of the batch).
        pad_to_max_tokens, vocabulary, idf_weights: as `StringLookup`.
        ragged: ``"int"`` outputs as an ``ek.RaggedTensor`` (no padding).

    Raises:
        ValueError: bad arguments (named). NotImplementedError: ``sparse=True``.

    >>> layer = ek.keras.layers.TextVectorization(output_sequence_length=4)
    >>> layer.adapt(["The cat sat.", "the dog sat"])
    >>> layer.get_vocabulary()  # by count; ties by decreasing token, as Keras 3
    ['', '[UNK]', 'the', 'sat', 'dog', 'cat']
    >>> layer(ek.constant(["the bird sat"])).numpy()
    array([[2, 1, 3, 0]])
    """

    def __init__(
        self,
        max_tokens=None,
        standardize="lower_and_strip_punctuation",
        split="whitespace",
        ngrams=None,
        output_mode="int",
        output_sequence_length=None,
        pad_to_max_tokens=False,
        vocabulary=None,
        idf_weights=None,
        sparse=False,
        ragged=False,
        encoding="utf-8",
        **kwargs,
    ):
        output_mode = _MODE_ALIASES.get(output_mode, output_mode)
        if output_mode not in ("int", "multi_hot", "count", "tf_idf"):
            raise ValueError(
                "TextVectorization: output_mode must be 'int', 'multi_hot', 'count' or "
                f"'tf_idf'. Received: output_mode={output_mode!r}"
            )
        known = ("lower_and_strip_punctuation", "lower", "strip_punctuation", None)
        if standardize not in known and not callable(standardize):
            raise ValueError(f"TextVectorization: unknown standardize={standardize!r}.")
        if split not in ("whitespace", "character", None) and not callable(split):
            raise ValueError(f"TextVectorization: unknown split={split!r}.")
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError("TextVectorization: output_sequence_length needs output_mode='int'.")
        if ragged and output_mode != "int":
            raise ValueError("TextVectorization: ragged=True needs output_mode='int'.")
        if encoding != "utf-8":
            raise NotImplementedError("TextVectorization: only encoding='utf-8' is supported.")
        if isinstance(ngrams, int):
            ngrams = tuple(range(1, ngrams + 1))
        elif ngrams is not None:
            ngrams = tuple(int(n) for n in ngrams)
        kwargs.pop("vocabulary_size", None)  # in Keras 3's config; derived from the vocabulary
        super().__init__(**kwargs)
        self.standardize = standardize
        self.split = split
        self.ngrams = ngrams
        self.output_mode = output_mode
        self.output_sequence_length = output_sequence_length
        self.ragged = bool(ragged)
        self._lookup = StringLookup(
            max_tokens=max_tokens,
            num_oov_indices=1,
            mask_token="",  # as Keras: the encoded modes drop empty tokens
            vocabulary=None,
            output_mode=output_mode,
            pad_to_max_tokens=pad_to_max_tokens,
            sparse=sparse,
            name=f"{self.name}_lookup",
        )
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    def _standardize(self, text: str) -> str:
        s = self.standardize
        if s in ("lower", "lower_and_strip_punctuation"):
            text = text.translate(_ASCII_LOWER)  # tf.strings.lower: ASCII letters only
        if s in ("strip_punctuation", "lower_and_strip_punctuation"):
            text = _PUNCTUATION.sub("", text)
        return text

    def _tokens(self, arr) -> list:
        """Per input string, its list of tokens (bytes); with ``split=None`` a 1-D batch is
        one sequence of tokens (one list), as Keras treats it."""
        arr = np.asarray(arr, dtype=object)
        whole = self.split is None and arr.ndim == 1
        if arr.ndim == 2 and arr.shape[-1] == 1:
            arr = arr[:, 0]
        if callable(self.standardize):
            arr = host_array(self.standardize(to_tensor(arr)))
        rows = []
        for item in arr.reshape(-1):
            text = item.decode("utf-8") if isinstance(item, bytes) else str(item)
            if not callable(self.standardize):
                text = self._standardize(text)
            if self.split == "whitespace":
                words = text.split()
            elif self.split == "character":
                words = list(text)
            elif self.split is None:
                words = [text]
            else:
                pieces = self.split(to_tensor(np.array([text], object)))
                if isinstance(pieces, RaggedTensor):  # tf.strings.split's [1, None] rows
                    pieces = pieces.flat_values
                pieces = host_array(pieces)
                words = [
                    w.decode("utf-8") if isinstance(w, bytes) else str(w)
                    for w in np.asarray(pieces, object).reshape(-1)
                ]
            rows.append(words)
        if whole:
            rows = [[w for words in rows for w in words]]
        out = []
        for words in rows:
            if self.ngrams:
                grams = []
                for n in self.ngrams:
                    grams += [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]
                words = grams
            out.append([w.encode("utf-8") for w in words])
        return out

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Builds the vocabulary from strings (arrays, Tensors or a Dataset of them). As
        Keras, a 1-D array or Tensor is a column (one document per string), while a 1-D
        batch of a Dataset with ``split=None`` is one document."""
        if isinstance(data, (list, tuple, np.ndarray, Tensor)):
            data = np.asarray(host_array(data), dtype=object)
            data = data.reshape(-1, 1) if data.ndim == 1 else data
        docs = []
        for batch in iter_batches(data, steps):
            docs += [np.array(t, dtype=object) for t in self._tokens(batch)]
        self._lookup.adapt(_Docs(docs))
        self.built = True

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        self._lookup.set_vocabulary(vocabulary, idf_weights)
        self.built = True

    def get_vocabulary(self, include_special_tokens=True) -> list:
        return self._lookup.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        return self._lookup.vocabulary_size()

    def call(self, inputs):
        arr = host_array(inputs)
        # one sequence: a scalar, or a 1-D batch with split=None (see _tokens)
        scalar = np.ndim(arr) == 0 or (self.split is None and np.ndim(arr) == 1)
        tokens = self._tokens(np.atleast_1d(arr))
        lookup = self._lookup
        if self.output_mode != "int":
            depth = lookup.vocabulary_size()
            if lookup.pad_to_max_tokens and lookup.max_tokens is not None:
                depth = lookup.max_tokens
            rows = [
                encode_categorical(
                    lookup._lookup(np.array(t, dtype=object)),
                    depth,
                    self.output_mode,
                    lookup._idf_padded(depth),
                    dtype=np.int64,
                )
                for t in tokens
            ]
            out = (
                np.stack(rows)
                if rows
                else np.zeros((0, depth), np.float32 if self.output_mode == "tf_idf" else np.int64)
            )
            return host_tensor(out[0] if scalar else out)
        ids = [lookup._lookup(np.array(t, dtype=object)) for t in tokens]
        if self.ragged and not scalar:  # Keras gives one sequence as a dense vector
            from ...ragged import ragged_tensor

            if self.output_sequence_length is not None:  # Keras truncates ragged rows too
                ids = [i[: self.output_sequence_length] for i in ids]
            return ragged_tensor.RaggedTensor.from_row_lengths(
                np.concatenate(ids) if ids else np.zeros(0, np.int64), [len(i) for i in ids]
            )
        length = self.output_sequence_length
        if length is None:
            length = max((len(i) for i in ids), default=0)
        out = np.zeros((len(ids), length), np.int64)
        for r, row in enumerate(ids):
            row = row[:length]
            out[r, : len(row)] = row
        return host_tensor(out[0] if scalar else out)

    def compute_output_shape(self, input_shape) -> tuple:
        """Keras 3's formula: ``(batch, output_sequence_length)`` for ``"int"``; else the
        lookup's shape for the input with a token axis added (``(batch, 1, depth)`` for a
        ``(batch, 1)`` input that is split, although the call gives ``(batch, depth)``)."""
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return (input_shape[0], self.output_sequence_length)
        if self.split is not None:
            input_shape += (None,)
        elif len(input_shape) <= 1:
            input_shape += (1,)
        return self._lookup.compute_output_shape(input_shape)

    def get_config(self) -> dict:
        lookup = self._lookup
        return {
            **super().get_config(),
            "max_tokens": lookup.max_tokens,
            "standardize": self.standardize if isinstance(self.standardize, str) else None,
            "split": self.split if isinstance(self.split, str) else None,
            "ngrams": list(self.ngrams) if self.ngrams else None,
            "output_mode": self.output_mode,
            "output_sequence_length": self.output_sequence_length,
            "pad_to_max_tokens": lookup.pad_to_max_tokens,
            "vocabulary": lookup.get_vocabulary(include_special_tokens=False) or None,
            "idf_weights": None
            if lookup._idf is None
            else lookup._idf[len(lookup._specials()) :].tolist(),
            "ragged": self.ragged,
        }


class _Docs:
    """Token lists as `adapt` input: one row per document (rows of different lengths)."""

    def __init__(self, docs):
        self.docs = docs

    def __iter__(self):
        return iter(self.docs)


class CategoryEncoding(Layer):
    """Integer category ids to one-hot, multi-hot or count vectors (follows
    `tf.keras.layers.CategoryEncoding`).

    Args:
        num_tokens: the number of categories; ids must be in ``[0, num_tokens)``.
        output_mode: ``"multi_hot"`` (default), ``"one_hot"`` or ``"count"``.

    Call arguments:
        inputs: int ids, shape ``(batch,)`` or ``(batch, n)``. count_weights: optional
            weights of the same shape for ``"count"``.

    Raises:
        ValueError: a bad ``output_mode``. InvalidArgumentError: negative ids with
            ``"multi_hot"`` or ``"count"``; ids past ``num_tokens`` are dropped (and negative
            ones with ``"one_hot"``: a zero row), as TensorFlow's bincount and one_hot.

    >>> ek.keras.layers.CategoryEncoding(4, "multi_hot")(ek.constant([[0, 1], [0, 0]])).numpy()
    array([[1., 1., 0., 0.],
           [1., 0., 0., 0.]], dtype=float32)
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        if output_mode not in ("one_hot", "multi_hot", "count"):
            raise ValueError(
                "CategoryEncoding: output_mode must be 'one_hot', 'multi_hot' or 'count'. "
                f"Received: output_mode={output_mode!r}"
            )
        if num_tokens is None or int(num_tokens) < 1:
            raise ValueError(f"CategoryEncoding: num_tokens must be >= 1. Received: {num_tokens}")
        if sparse:
            raise NotImplementedError("CategoryEncoding: sparse=True is not supported.")
        super().__init__(**kwargs)
        self.num_tokens = int(num_tokens)
        self.output_mode = output_mode

    def call(self, inputs, count_weights=None):
        idx = np.asarray(host_array(inputs), np.int64)
        idx = idx[None] if idx.ndim == 0 else idx  # Keras: a scalar is one sample
        # as TF: ids >= num_tokens are dropped (bincount's maxlength; tf.one_hot's zero row);
        # negative ids are an error of bincount (multi_hot, count), a zero row for one_hot
        if idx.size and idx.min() < 0 and self.output_mode != "one_hot":
            raise InvalidArgumentError(
                "CategoryEncoding: input ids must be non-negative; negative input value "
                f"found: {idx.min()}."
            )
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError("CategoryEncoding: count_weights needs output_mode='count'.")
            w = np.asarray(host_array(count_weights), np.float32)
            rows = idx.reshape(-1, idx.shape[-1]) if idx.ndim > 1 else idx.reshape(1, -1)
            wr = w.reshape(rows.shape)
            out = np.stack(
                [
                    np.bincount(r[ok], wts[ok], minlength=self.num_tokens)
                    for r, wts in zip(rows, wr)
                    for ok in [(r >= 0) & (r < self.num_tokens)]
                ]
            ).astype(np.float32)
            out = out.reshape(*idx.shape[:-1], self.num_tokens) if idx.ndim > 1 else out[0]
        else:
            out = encode_categorical(idx, self.num_tokens, self.output_mode)
        return host_tensor(out.astype(self._variable_dtype._np))  # Keras 3: in layer.dtype

    def compute_output_shape(self, input_shape) -> tuple:
        shape = tuple(input_shape)
        if self.output_mode == "one_hot" and (len(shape) == 1 or shape[-1:] != (1,)):
            return (*shape, self.num_tokens)
        return (*shape[:-1], self.num_tokens)

    def compute_output_spec(self, inputs, count_weights=None):
        """A KerasTensor of `compute_output_shape` in the layer's dtype, as its output."""
        from ..keras_tensor import KerasTensor

        return KerasTensor(self.compute_output_shape(tuple(inputs.shape)), self.dtype)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_tokens": self.num_tokens,
            "output_mode": self.output_mode,
        }
