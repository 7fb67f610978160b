"""The Keras 1 text utilities that `tf.keras.preprocessing.text` still exports: `Tokenizer`,
`tokenizer_from_json`, `text_to_word_sequence`, `one_hot` and `hashing_trick` (follows
`keras/src/legacy/preprocessing/text.py`, which TensorFlow 2.16+ serves under
`tf.keras.preprocessing.text`). Pure Python on lists of strings and ints; the only array made
is the float64 matrix of `Tokenizer.sequences_to_matrix`."""

from __future__ import annotations

import collections
import hashlib
import json
import warnings

import numpy as np

__all__ = ["Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence", "tokenizer_from_json"]

FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(
    input_text: str, filters: str = FILTERS, lower: bool = True, split: str = " "
) -> list[str]:
    """The words of ``input_text``: lower-cased (``lower``), every character of ``filters``
    turned into ``split``, then split on ``split`` with empty pieces dropped.

    >>> text_to_word_sequence("Hello, World!  again")
    ['hello', 'world', 'again']
    """
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({c: split for c in filters}))
    return [w for w in input_text.split(split) if w]


def hashing_trick(
    text: str,
    n: int,
    hash_function=None,
    filters: str = FILTERS,
    lower: bool = True,
    split: str = " ",
    analyzer=None,
) -> list[int]:
    """Each word of ``text`` hashed to an index in ``[1, n - 1]`` (0 stays free for padding):
    ``hash_function(word) % (n - 1) + 1``. ``hash_function`` defaults to Python's ``hash``
    (salted per process for strings); ``"md5"`` gives stable indices. ``analyzer``, when
    given, replaces `text_to_word_sequence`.

    >>> hashing_trick("a b a", 10, hash_function="md5") == hashing_trick("a b a", 10, "md5")
    True
    """
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":

        def hash_function(w):
            return int(hashlib.md5(w.encode()).hexdigest(), 16)

    if analyzer is None:
        seq = text_to_word_sequence(text, filters=filters, lower=lower, split=split)
    else:
        seq = analyzer(text)
    return [hash_function(w) % (n - 1) + 1 for w in seq]


def one_hot(
    input_text: str,
    n: int,
    filters: str = FILTERS,
    lower: bool = True,
    split: str = " ",
    analyzer=None,
) -> list[int]:
    """`hashing_trick` with Python's ``hash`` (Keras's name; it returns indices, not one-hot
    vectors)."""
    return hashing_trick(
        input_text, n, hash_function=hash, filters=filters, lower=lower, split=split,
        analyzer=analyzer,
    )  # fmt: skip


class Tokenizer:
    """Word (or character) index built from texts, as `tf.keras.preprocessing.text.Tokenizer`.

    `fit_on_texts` counts words; indices start at 1 in order of decreasing count (ties keep
    first-seen order), with ``oov_token`` forced to index 1 when given. ``num_words`` keeps
    only indices below it when converting (``word_index`` itself is never cut). Attributes:
    ``word_counts`` (OrderedDict), ``word_docs``, ``index_docs`` (defaultdict(int)),
    ``word_index``, ``index_word``, ``document_count``.

    Raises:
        TypeError: an unknown keyword argument (``nb_words`` is accepted with a warning).

    >>> t = Tokenizer(num_words=3)
    >>> t.fit_on_texts(["the cat", "the dog"])
    >>> t.word_index, t.texts_to_sequences(["the dog cat"])
    ({'the': 1, 'cat': 2, 'dog': 3}, [[1, 2]])
    """

    def __init__(
        self,
        num_words: int | None = None,
        filters: str = FILTERS,
        lower: bool = True,
        split: str = " ",
        char_level: bool = False,
        oov_token: str | None = None,
        analyzer=None,
        **kwargs,
    ):
        if "nb_words" in kwargs:
            warnings.warn(
                "The `nb_words` argument in `Tokenizer` has been renamed `num_words`.",
                stacklevel=2,
            )
            num_words = kwargs.pop("nb_words")
        document_count = kwargs.pop("document_count", 0)
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments: {kwargs}")
        self.word_counts = collections.OrderedDict()
        self.word_docs = collections.defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs = collections.defaultdict(int)
        self.word_index = {}
        self.index_word = {}
        self.analyzer = analyzer

    def _tokens(self, text):
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts) -> None:
        """Count the words of ``texts`` (strings, or lists of tokens) and rebuild the index."""
        for text in texts:
            self.document_count += 1
            seq = self._tokens(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        ranked = sorted(self.word_counts.items(), key=lambda wc: wc[1], reverse=True)
        vocab = ([] if self.oov_token is None else [self.oov_token]) + [w for w, _ in ranked]
        self.word_index = dict(zip(vocab, range(1, len(vocab) + 1)))
        self.index_word = {i: w for w, i in self.word_index.items()}
        for w, c in list(self.word_docs.items()):
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences) -> None:
        """Count document frequencies of indices (for ``mode="tfidf"`` matrices)."""
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences(self, texts) -> list[list[int]]:
        """Each text as a list of word indices; unknown words (and indices ``>= num_words``)
        become the ``oov_token``'s index, or are dropped without one."""
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts):
        """`texts_to_sequences`, one list per text, lazily."""
        num_words = self.num_words
        oov = self.word_index.get(self.oov_token)
        for text in texts:
            vect = []
            for w in self._tokens(text):
                i = self.word_index.get(w)
                if i is None:
                    if self.oov_token is not None:
                        vect.append(oov)
                elif not (num_words and i >= num_words):
                    vect.append(i)
                elif oov is not None:
                    vect.append(oov)
            yield vect

    def sequences_to_texts(self, sequences) -> list[str]:
        """The inverse of `texts_to_sequences`: words joined by spaces."""
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences):
        """`sequences_to_texts`, one string per sequence, lazily."""
        num_words = self.num_words
        oov = self.word_index.get(self.oov_token)
        for seq in sequences:
            vect = []
            for num in seq:
                word = self.index_word.get(num)
                if word is None:
                    if self.oov_token is not None:
                        vect.append(self.index_word[oov])
                elif not (num_words and num >= num_words):
                    vect.append(word)
                elif oov is not None:
                    vect.append(self.index_word[oov])
            yield " ".join(vect)

    def texts_to_matrix(self, texts, mode: str = "binary") -> np.ndarray:
        """`sequences_to_matrix` of `texts_to_sequences`."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode: str = "binary") -> np.ndarray:
        """A float64 ``(len(sequences), num_words)`` matrix (``len(word_index) + 1`` columns
        without ``num_words``). ``mode``: ``"binary"`` (1 where present), ``"count"``,
        ``"freq"`` (count / sequence length) or ``"tfidf"`` (``(1 + log count) *
        log(1 + document_count / (1 + index_docs[j]))``).

        Raises:
            ValueError: no ``num_words`` and nothing fitted, ``"tfidf"`` before fitting, or
                an unknown ``mode``.
        """
        if self.num_words:
            num_words = self.num_words
        elif self.word_index:
            num_words = len(self.word_index) + 1
        else:
            raise ValueError(
                "Specify a dimension (`num_words` argument), or fit on some text data first."
            )
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            if not seq:
                continue
            counts = collections.Counter(j for j in seq if j < num_words)
            for j, c in counts.items():
                if mode == "count":
                    x[i][j] = c
                elif mode == "freq":
                    x[i][j] = c / len(seq)
                elif mode == "binary":
                    x[i][j] = 1
                elif mode == "tfidf":
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i][j] = (1 + np.log(c)) * idf
                else:
                    raise ValueError("Unknown vectorization mode:", mode)
        return x

    def get_config(self) -> dict:
        """The constructor arguments plus the fitted tables, the tables as JSON strings."""
        return {
            "num_words": self.num_words,
            "filters": self.filters,
            "lower": self.lower,
            "split": self.split,
            "char_level": self.char_level,
            "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs) -> str:
        """``{"class_name": "Tokenizer", "config": get_config()}`` as JSON (``kwargs`` go to
        `json.dumps`); read back with `tokenizer_from_json`."""
        config = {"class_name": type(self).__name__, "config": self.get_config()}
        return json.dumps(config, **kwargs)


def tokenizer_from_json(json_string: str) -> Tokenizer:
    """The `Tokenizer` saved by `Tokenizer.to_json` (integer keys restored)."""
    config = json.loads(json_string).get("config")
    tables = {k: json.loads(config.pop(k)) for k in
              ("word_counts", "word_docs", "index_docs", "index_word", "word_index")}  # fmt: skip
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = tables["word_counts"]
    tokenizer.word_docs = tables["word_docs"]
    tokenizer.index_docs = {int(k): v for k, v in tables["index_docs"].items()}
    tokenizer.word_index = tables["word_index"]
    tokenizer.index_word = {int(k): v for k, v in tables["index_word"].items()}
    return tokenizer
