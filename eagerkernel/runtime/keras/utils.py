"""`ek.keras.utils`: `to_categorical`, `set_random_seed` and the serialization helpers Keras
also exports here (follow `tf.keras.utils`)."""

from __future__ import annotations

import hashlib
import os
import random as _py_random
import tarfile
import zipfile

import numpy as np

from ..core.tensor import Tensor, constant
from .backend import clear_session, is_keras_tensor
from .data_adapter import pack as pack_x_y_sample_weight
from .data_adapter import unpack as unpack_x_y_sample_weight
from .feature_space import FeatureSpace
from .io_utils import (
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from .model_plot import model_to_dot, plot_model
from .preprocessing import (
    audio_dataset_from_directory,
    image_dataset_from_directory,
    pad_sequences,
    text_dataset_from_directory,
    timeseries_dataset_from_array,
)
from .preprocessing.image import array_to_img, img_to_array, load_img
from .progbar import Progbar
from .py_dataset import PyDataset, Sequence
from .saving import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from .utils_more import Config, get_source_inputs, save_img, split_dataset

__all__ = [
    "Config",
    "CustomObjectScope",
    "FeatureSpace",
    "Progbar",
    "PyDataset",
    "Sequence",
    "array_to_img",
    "audio_dataset_from_directory",
    "clear_session",
    "custom_object_scope",
    "deserialize_keras_object",
    "disable_interactive_logging",
    "enable_interactive_logging",
    "get_custom_objects",
    "get_file",
    "get_registered_name",
    "get_registered_object",
    "get_source_inputs",
    "image_dataset_from_directory",
    "img_to_array",
    "is_interactive_logging_enabled",
    "is_keras_tensor",
    "load_img",
    "model_to_dot",
    "normalize",
    "pack_x_y_sample_weight",
    "pad_sequences",
    "plot_model",
    "register_keras_serializable",
    "save_img",
    "serialize_keras_object",
    "set_random_seed",
    "split_dataset",
    "standardize_dtype",
    "text_dataset_from_directory",
    "timeseries_dataset_from_array",
    "to_categorical",
    "unpack_x_y_sample_weight",
]


def to_categorical(x, num_classes=None) -> np.ndarray:
    """One-hot rows for integer class labels (follows `tf.keras.utils.to_categorical`).

    Args:
        x: integer labels of any shape (a trailing axis of size 1 is dropped, as Keras does).
        num_classes: default ``max(x) + 1``.

    Returns:
        An array of shape ``x.shape + (num_classes,)``: a float32 Tensor when ``x`` is a Tensor
        (Keras 3 one-hot encodes backend tensors with ``ops.one_hot``), else a float64 NumPy
        array (Keras 3 fills ``np.zeros((n, num_classes))``; ``fit`` casts it to floatx).

    Raises:
        ValueError: labels that are negative, not integers, or not below ``num_classes``.

    >>> ek.keras.utils.to_categorical([0, 2, 1], num_classes=3)
    array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 1., 0.]])
    """
    arr = np.asarray(x.numpy() if isinstance(x, Tensor) else x)
    if arr.size and arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
        raise ValueError(f"to_categorical: labels must be integers. Received: {arr!r:.200}")
    if arr.size and arr.dtype.kind not in "iuf":
        raise ValueError(f"to_categorical: labels must be integers. Received dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.ndim > 1 and arr.shape[-1] == 1:
        arr = arr[..., 0]
    if num_classes is None:
        num_classes = int(arr.max()) + 1 if arr.size else 0
    num_classes = int(num_classes)
    if arr.size and (arr.min() < 0 or arr.max() >= num_classes):
        raise ValueError(
            f"to_categorical: labels must lie in [0, {num_classes}). Received: min "
            f"{int(arr.min())}, max {int(arr.max())}, num_classes={num_classes}"
        )
    out = np.zeros((*arr.shape, num_classes), np.float32 if isinstance(x, Tensor) else np.float64)
    np.put_along_axis(out, arr[..., None], 1.0, axis=-1)
    return constant(out) if isinstance(x, Tensor) else out


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (follows `keras.utils.normalize`):
    a NumPy array in, a NumPy array out; a Tensor in, a Tensor out. Zero norms leave their
    entries zero instead of dividing by zero.

    >>> normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
    array([[0.6, 0.8],
           [0. , 0. ]])
    """
    if isinstance(x, Tensor):
        from ..ops.math_ops import divide_no_nan
        from ..ops.norms import norm

        return divide_no_nan(x, norm(x, ord=order, axis=axis, keepdims=True))
    x = np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def standardize_dtype(dtype) -> str:
    """The canonical name of ``dtype`` (follows `keras.utils.standardize_dtype`): a string
    such as ``"float32"`` for a dtype object, a NumPy dtype, a Python type or a name; None
    gives `keras.backend.floatx`.

    >>> standardize_dtype(np.float64), standardize_dtype(ek.int32), standardize_dtype(None)
    ('float64', 'int32', 'float32')

    Raises:
        ValueError: not a dtype.
    """
    from ..core import dtypes
    from .backend import floatx

    if dtype is None:
        return floatx()
    if dtype is int:
        return "int64"
    if dtype is float:
        return "float32"
    try:
        return dtypes.as_dtype(dtype).name
    except (TypeError, ValueError):
        raise ValueError(f"standardize_dtype: invalid dtype: {dtype!r}") from None


def set_random_seed(seed: int) -> None:
    """Seeds Python's `random`, NumPy's global generator and eagerkernel's (`ek.random.set_seed`)
    at once (follows `tf.keras.utils.set_random_seed`).

    Raises:
        ValueError: a seed that is not an int.
    """
    from .. import random as ek_random

    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"set_random_seed: expected an int seed. Received: seed={seed!r}")
    from .random import reset_global_seed_generator

    reset_global_seed_generator()  # Keras's unseeded draws start over from Python's `random`
    _py_random.seed(int(seed))
    np.random.seed(int(seed))
    ek_random.set_seed(int(seed))


def _keras_home() -> str:
    return os.environ.get("KERAS_HOME", os.path.join(os.path.expanduser("~"), ".keras"))


def _hash_of(path: str, algorithm: str) -> str:
    h = hashlib.md5() if algorithm == "md5" else hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _extract(archive: str, into: str, archive_format) -> bool:
    """Extracts a tar or zip archive into ``into`` (tar members filtered as "data": no
    absolute paths, links out of the directory or devices); False if it is neither."""
    formats = ["tar", "zip"] if archive_format in ("auto", None) else archive_format
    formats = [formats] if isinstance(formats, str) else list(formats)
    if "tar" in formats and tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tar:
            tar.extractall(into, filter="data")
        return True
    if "zip" in formats and zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            z.extractall(into)
        return True
    return False


def get_file(
    fname=None,
    origin=None,
    untar=False,
    md5_hash=None,
    file_hash=None,
    cache_subdir="datasets",
    hash_algorithm="auto",
    extract=False,
    archive_format="auto",
    cache_dir=None,
    force_download=False,
) -> str:
    """The path of a file from Keras's cache directory (follows `tf.keras.utils.get_file`,
    without the download: eagerkernel downloads nothing at run time).

    The file is looked for where Keras keeps it: ``<cache_dir>/<cache_subdir>/<fname>``, with
    ``cache_dir`` defaulting to ``$KERAS_HOME`` or ``~/.keras`` (``fname`` defaults to the
    last part of ``origin``). With ``untar`` or ``extract``, the extracted directory
    ``<fname>`` (``fname`` without ``.tar.gz``) is returned, extracting ``<fname>.tar.gz``
    (or the archive named by ``origin``) first when only the archive is there. ``file_hash``
    (or ``md5_hash``) is checked against the file found.

    Raises:
        FileNotFoundError: the file is not in the cache; the message says where to put it.
        ValueError: a hash that does not match, or ``force_download=True`` (nothing is
            downloaded).
    """
    if fname is None and origin is None:
        raise ValueError(
            'get_file: please specify the "origin" argument (URL of the file to download).'
        )
    if fname is None:
        fname = os.path.basename(str(origin).split("?")[0])
    fname = os.fspath(fname)
    datadir = os.path.join(
        os.path.expanduser(cache_dir) if cache_dir else _keras_home(), cache_subdir
    )
    if force_download:
        raise ValueError(
            f"get_file: force_download=True asks for a download, and eagerkernel downloads "
            f"nothing at run time. Download {origin} yourself into {datadir}."
        )
    unpack = untar or extract
    base = fname[: -len(".tar.gz")] if untar and fname.endswith(".tar.gz") else fname
    target = os.path.join(datadir, base)
    if unpack and not os.path.exists(target):
        archives = [os.path.join(datadir, base + ".tar.gz"), os.path.join(datadir, fname)]
        if origin is not None:
            archives.append(os.path.join(datadir, os.path.basename(str(origin).split("?")[0])))
        for archive in archives:
            if os.path.isfile(archive) and _extract(archive, datadir, archive_format):
                break
    path = target if unpack else os.path.join(datadir, fname)
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"get_file: {fname!r} is not in the Keras cache directory {datadir}, and "
            f"eagerkernel downloads nothing at run time. Download {origin} yourself and put "
            f"it at {path}{' (or its archive next to it)' if unpack else ''}."
        )
    expected = file_hash or md5_hash
    if expected is not None and os.path.isfile(path):
        algorithm = hash_algorithm
        if algorithm == "auto":
            algorithm = "sha256" if len(expected) == 64 else "md5"
        if algorithm not in ("md5", "sha256"):
            raise ValueError(f"get_file: unknown hash_algorithm {hash_algorithm!r}.")
        actual = _hash_of(path, algorithm)
        if actual != expected:
            raise ValueError(
                f"get_file: {path} has {algorithm} {actual}, expected {expected}; the file "
                "in the cache is not the one asked for (nothing is downloaded)."
            )
    return path
