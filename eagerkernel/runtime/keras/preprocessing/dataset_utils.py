"""Listing a directory of class subdirectories, labels and train/validation splits, shared by
`image_dataset_from_directory` and `text_dataset_from_directory` (follows Keras's
``keras.utils.dataset_utils``, whose rules are the specification)."""

from __future__ import annotations

import os

import numpy as np

__all__ = ["check_split", "index_directory", "labels_dataset", "split"]


def _files_under(directory: str, formats: tuple, follow_links: bool) -> list:
    out = []
    for root, dirs, files in os.walk(directory, followlinks=follow_links):
        dirs.sort()
        for name in sorted(files):
            if name.lower().endswith(formats):
                out.append(os.path.join(root, name))
    return out


def index_directory(
    op: str,
    directory,
    labels,
    formats: tuple,
    class_names=None,
    shuffle: bool = True,
    seed=None,
    follow_links: bool = False,
    verbose: bool = True,
) -> tuple:
    """``(file paths, integer labels or None, class names)`` of ``directory``.

    ``labels="inferred"``: each subdirectory is a class (alphanumeric order, or the order of
    ``class_names``), its files (recursively) its samples. ``labels=None``: every file, no
    labels. A list or tuple: one integer label per file, the files in alphanumeric order of
    their paths. With ``shuffle``, paths and labels are shuffled together with ``seed``
    (a random one when None). Prints Keras's "Found N files belonging to K classes."

    Raises:
        ValueError: an argument Keras refuses (named with what was received).
        FileNotFoundError: ``directory`` does not exist.
    """
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"{op}: directory {directory!r} does not exist.")
    if labels is None or isinstance(labels, (list, tuple, np.ndarray)):
        if class_names is not None:
            raise ValueError(
                f"{op}: class_names is only meaningful with labels='inferred'. Received: "
                f"labels={labels!r:.60}, class_names={class_names!r}"
            )
        paths = _files_under(directory, formats, follow_links)
        if labels is not None:
            labels = np.asarray(labels)
            if len(labels) != len(paths):
                raise ValueError(
                    f"{op}: expected the labels to have the same length as the number of "
                    f"files in the target directory. Received: len(labels)={len(labels)} "
                    f"while we found len(file_paths)={len(paths)} files in directory "
                    f"{directory}."
                )
            labels = labels.astype(np.int32)
        names = []
    elif labels == "inferred":
        subdirs = sorted(
            d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d))
        )
        if class_names is not None:
            class_names = list(class_names)
            if not set(class_names).issubset(subdirs):
                raise ValueError(
                    f"{op}: the `class_names` passed did not match the names of the "
                    f"subdirectories of the target directory. Expected: {subdirs} (or a "
                    f"subset of it), but received: class_names={class_names}"
                )
            subdirs = class_names
        paths, label_list = [], []
        for k, name in enumerate(subdirs):
            files = _files_under(os.path.join(directory, name), formats, follow_links)
            paths += files
            label_list += [k] * len(files)
        labels = np.asarray(label_list, np.int32)
        names = list(subdirs)
    else:
        raise ValueError(
            f"{op}: `labels` argument should be a list/tuple of integer labels, of the same "
            f"size as the number of files in the target directory. If you wish to infer the "
            f"labels from the subdirectory names in the target directory, pass "
            f'`labels="inferred"`. If you wish to get a dataset that only contains images '
            f"(no labels), pass `labels=None`. Received: labels={labels!r:.60}"
        )
    if shuffle:
        if seed is None:
            seed = np.random.randint(1_000_000)
        order = np.random.RandomState(seed).permutation(len(paths))
        paths = [paths[i] for i in order]
        if labels is not None:
            labels = labels[order]
    if verbose:
        if names:
            print(f"Found {len(paths)} files belonging to {len(names)} classes.")
        else:
            print(f"Found {len(paths)} files.")
    return paths, labels, names


def check_split(op: str, validation_split, subset, shuffle: bool, seed) -> None:
    """Keras's checks of ``validation_split`` / ``subset`` (raises ValueError)."""
    if subset not in (None, "training", "validation", "both"):
        raise ValueError(
            f'{op}: `subset` must be either "training", "validation" or "both". Received: '
            f"subset={subset!r}"
        )
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(
            f"{op}: `validation_split` must be between 0 and 1. Received: "
            f"validation_split={validation_split!r}"
        )
    if (validation_split is None) != (subset is None):
        raise ValueError(
            f"{op}: if `subset` is set, `validation_split` must be set, and inversely. "
            f"Received: validation_split={validation_split!r}, subset={subset!r}"
        )
    if validation_split and shuffle and seed is None:
        raise ValueError(
            f"{op}: if using `validation_split` and shuffling the data, you must provide a "
            "`seed` argument, to make sure that there is no overlap between the training "
            "and validation subset."
        )


def split(paths: list, labels, validation_split, subset: str, verbose: bool = True) -> tuple:
    """``(paths, labels)`` of the ``"training"`` or ``"validation"`` subset: the last
    ``int(validation_split * n)`` samples are the validation ones (Keras's rule)."""
    if not validation_split:
        return paths, labels
    n_val = int(validation_split * len(paths))
    if subset == "training":
        if verbose:
            print(f"Using {len(paths) - n_val} files for training.")
        keep = slice(0, len(paths) - n_val)
    else:
        if verbose:
            print(f"Using {n_val} files for validation.")
        keep = slice(len(paths) - n_val, len(paths))
    return paths[keep], None if labels is None else labels[keep]


def labels_dataset(op: str, labels: np.ndarray, label_mode: str, num_classes: int):
    """The labels as Keras gives them: int32 (``"int"``), float32 one-hot
    (``"categorical"``) or float32 of shape (1,) (``"binary"``)."""
    from ...data import Dataset

    if label_mode == "int":
        return Dataset.from_tensor_slices(labels.astype(np.int32))
    if label_mode == "categorical":
        return Dataset.from_tensor_slices(np.eye(num_classes, dtype=np.float32)[labels])
    if label_mode == "binary":
        return Dataset.from_tensor_slices(labels.astype(np.float32)[:, None])
    raise ValueError(f"{op}: unknown label_mode {label_mode!r}.")


def check_label_mode(op: str, labels, label_mode, class_names) -> None:
    """Keras's checks of ``label_mode`` against the labels and classes."""
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(
            f'{op}: `label_mode` argument must be one of "int", "categorical", "binary", or '
            f"None. Received: label_mode={label_mode!r}"
        )
    if labels is None or label_mode is None:
        return
    if label_mode == "binary" and class_names is not None and len(class_names) not in (0, 2):
        raise ValueError(
            f'{op}: when passing `label_mode="binary"`, there must be exactly 2 class_names. '
            f"Received: class_names={class_names}"
        )
