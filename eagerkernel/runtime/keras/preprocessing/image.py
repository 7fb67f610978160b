"""Images from files: `load_img`, `img_to_array`, `array_to_img`, `image_dataset_from_directory`,
`smart_resize` and Keras's older `ImageDataGenerator` (follow `tf.keras.utils` /
`tf.keras.preprocessing.image`).

Files are decoded with Pillow. `image_dataset_from_directory` gives an `ek.data.Dataset` of
float32 image batches (values 0-255, resized with `ek.image.resize`) and labels;
`image_generator.ImageDataGenerator` (``ek.keras.preprocessing.image.ImageDataGenerator``)
gives Keras's endless batch iterators with random augmentation.
"""

from __future__ import annotations

import os

import numpy as np

from ..layers.augmentation import smart_resize
from . import dataset_utils

__all__ = [
    "array_to_img",
    "image_dataset_from_directory",
    "img_to_array",
    "load_img",
    "smart_resize",
]

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_MODES = {"grayscale": ("L", 1), "rgb": ("RGB", 3), "rgba": ("RGBA", 4)}
_PIL_INTERPOLATION = {
    "nearest": 0,
    "bilinear": 2,
    "bicubic": 3,
    "hamming": 5,
    "box": 4,
    "lanczos": 1,
}


def _pil():
    try:
        from PIL import Image
    except ImportError as exc:  # pragma: no cover - Pillow comes with matplotlib
        raise ImportError("Loading images needs Pillow: pip install pillow.") from exc
    return Image


def load_img(
    path,
    color_mode: str = "rgb",
    target_size=None,
    interpolation: str = "nearest",
    keep_aspect_ratio: bool = False,
):
    """A Pillow image read from ``path`` (follows `tf.keras.utils.load_img`).

    Args:
        color_mode: ``"grayscale"``, ``"rgb"`` or ``"rgba"``.
        target_size: ``(height, width)`` to resize to, or None.
        interpolation: Pillow's ``"nearest"``, ``"bilinear"``, ``"bicubic"``, ``"hamming"``,
            ``"box"`` or ``"lanczos"``.
        keep_aspect_ratio: crop the middle to the target's aspect ratio before resizing.

    Raises:
        ValueError: an unknown ``color_mode`` or ``interpolation``.
    """
    image_module = _pil()
    if color_mode not in _MODES:
        raise ValueError(
            f'load_img: color_mode must be "grayscale", "rgb", or "rgba". Received: '
            f"color_mode={color_mode!r}"
        )
    if interpolation not in _PIL_INTERPOLATION:
        raise ValueError(
            f"load_img: invalid interpolation method {interpolation!r}; supported: "
            f"{sorted(_PIL_INTERPOLATION)}"
        )
    with open(os.fspath(path), "rb") as f:
        img = image_module.open(f)
        img.load()
    mode = _MODES[color_mode][0]
    if img.mode != mode:
        img = img.convert(mode)
    if target_size is not None:
        height, width = int(target_size[0]), int(target_size[1])
        if (img.size[0], img.size[1]) != (width, height):
            box = None
            if keep_aspect_ratio:
                w, h = img.size
                crop_w, crop_h = min(w, h * width // height), min(h, w * height // width)
                left, top = (w - crop_w) // 2, (h - crop_h) // 2
                box = (left, top, left + crop_w, top + crop_h)
            img = img.resize((width, height), _PIL_INTERPOLATION[interpolation], box=box)
    return img


def img_to_array(img, data_format=None, dtype=None) -> np.ndarray:
    """A Pillow image as a NumPy array ``(height, width, channels)`` (follows
    `tf.keras.utils.img_to_array`; default dtype float32)."""
    data_format = _data_format("img_to_array", data_format)
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 2:
        x = x[:, :, None]
    if x.ndim != 3:
        raise ValueError(f"img_to_array: unsupported image shape {x.shape}")
    return x.transpose(2, 0, 1) if data_format == "channels_first" else x


def array_to_img(x, data_format=None, scale: bool = True, dtype=None):
    """A NumPy array ``(height, width, 1|3|4)`` as a Pillow image (follows
    `tf.keras.utils.array_to_img`): with ``scale``, values are mapped to 0-255."""
    image_module = _pil()
    data_format = _data_format("array_to_img", data_format)
    x = np.asarray(getattr(x, "numpy", lambda: x)(), dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError(
            f"array_to_img: expected an image array of rank 3. Received: shape {x.shape}"
        )
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        peak = np.max(x)
        if peak != 0:
            x = x / peak
        x = x * 255
    channels = x.shape[2]
    if channels not in (1, 3, 4):
        raise ValueError(f"array_to_img: unsupported channel number {channels}")
    x = x.astype("uint8")
    return image_module.fromarray(x[:, :, 0] if channels == 1 else x)


def _data_format(op: str, data_format):
    if data_format in (None, "channels_last"):
        return "channels_last"
    if data_format == "channels_first":
        return data_format
    raise ValueError(
        f'{op}: data_format must be "channels_last" or "channels_first". Received: '
        f"data_format={data_format!r}"
    )


# -- image_dataset_from_directory -------------------------------------------------------------


def _decode(path: str, channels: int, image_size, interpolation: str, crop: bool, pad: bool):
    from ...ops import image as ek_image

    mode = {1: "L", 3: "RGB", 4: "RGBA"}[channels]
    image_module = _pil()
    with open(path, "rb") as f:
        img = image_module.open(f)
        img.load()
    x = np.asarray(img.convert(mode) if img.mode != mode else img, dtype=np.float32)
    if x.ndim == 2:
        x = x[:, :, None]
    height, width = image_size
    if crop or pad:
        h, w = x.shape[:2]
        if crop:
            ch, cw = min(h, w * height // width), min(w, h * width // height)
            top, left = (h - ch) // 2, (w - cw) // 2
            x = x[top : top + ch, left : left + cw]
        else:
            ph, pw = max(h, w * height // width), max(w, h * width // height)
            out = np.zeros((ph, pw, channels), np.float32)
            top, left = (ph - h) // 2, (pw - w) // 2
            out[top : top + h, left : left + w] = x
            x = out
    return ek_image.resize(x, (height, width), method=interpolation)


def image_dataset_from_directory(
    directory,
    labels="inferred",
    label_mode="int",
    class_names=None,
    color_mode="rgb",
    batch_size=32,
    image_size=(256, 256),
    shuffle=True,
    seed=None,
    validation_split=None,
    subset=None,
    interpolation="bilinear",
    follow_links=False,
    crop_to_aspect_ratio=False,
    pad_to_aspect_ratio=False,
    data_format=None,
    verbose=True,
):
    """An `ek.data.Dataset` of ``(images, labels)`` batches from a directory of images
    (follows `tf.keras.utils.image_dataset_from_directory`).

    ``directory/class_a/*.png, directory/class_b/*.jpg`` gives labels 0 and 1 (class names in
    alphanumeric order, or ``class_names``'s). Images are float32 ``(batch, height, width,
    channels)`` with values 0-255, resized to ``image_size`` by `ek.image.resize` with
    ``interpolation`` (any `ek.image.ResizeMethod` name, case-insensitive, as Keras); labels
    int32 ``(batch,)`` (``label_mode="int"``), float32 one-hot (``"categorical"``), float32
    ``(batch, 1)`` (``"binary"``, two classes), or absent (``label_mode=None`` or
    ``labels=None``). Files: .bmp .gif .jpeg .jpg .png (a GIF's first
    frame). ``batch_size=None`` yields single images. The dataset's ``class_names`` and
    ``file_paths`` attributes list the classes and files; ``subset="both"`` returns
    ``(training, validation)``.

    Raises:
        ValueError: arguments Keras refuses (named with what was received), or no image found.
    """
    op = "image_dataset_from_directory"
    if color_mode not in _MODES:
        raise ValueError(
            f'{op}: `color_mode` must be one of {{"rgb", "rgba", "grayscale"}}. Received: '
            f"color_mode={color_mode!r}"
        )
    channels = _MODES[color_mode][1]
    interpolation = str(interpolation).lower()
    supported = (
        "bilinear",
        "nearest",
        "bicubic",
        "area",
        "lanczos3",
        "lanczos5",
        "gaussian",
        "mitchellcubic",
    )
    if interpolation not in supported:
        raise ValueError(
            f"Argument `interpolation` should be one of {supported}. "
            f"Received: interpolation={interpolation}"
        )
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError(
            f"{op}: only one of `crop_to_aspect_ratio` and `pad_to_aspect_ratio` can be set "
            "to `True`."
        )
    data_format = _data_format(op, data_format)
    image_size = tuple(int(d) for d in image_size)
    if len(image_size) != 2:
        raise ValueError(f"{op}: image_size must be (height, width). Received: {image_size}")
    return dataset_from_directory(
        op,
        directory,
        labels,
        label_mode,
        class_names,
        batch_size,
        shuffle,
        seed,
        validation_split,
        subset,
        follow_links,
        verbose,
        ALLOWLIST_FORMATS,
        lambda p: _image_tensor(
            p,
            channels,
            image_size,
            interpolation,
            crop_to_aspect_ratio,
            pad_to_aspect_ratio,
            data_format,
        ),
    )


def _image_tensor(path, channels, image_size, interpolation, crop, pad, data_format):
    x = _decode(path, channels, image_size, interpolation, crop, pad)
    if data_format == "channels_first":
        from ...ops import transpose

        x = transpose(x, (2, 0, 1))
    return x


def dataset_from_directory(
    op,
    directory,
    labels,
    label_mode,
    class_names,
    batch_size,
    shuffle,
    seed,
    validation_split,
    subset,
    follow_links,
    verbose,
    formats,
    load,
):
    """The shared body of the ``*_dataset_from_directory`` functions: list, check, split,
    then a Dataset of ``load(path)`` (and labels), shuffled and batched as Keras does."""
    from ...data import Dataset

    dataset_utils.check_label_mode(op, labels, label_mode, class_names)
    dataset_utils.check_split(op, validation_split, subset, shuffle, seed)
    if batch_size is not None and (isinstance(batch_size, bool) or int(batch_size) <= 0):
        raise ValueError(f"{op}: batch_size must be a positive integer or None: {batch_size!r}")
    if labels is None or label_mode is None:  # Keras 3 then lists every file, no classes
        labels_for_index, label_mode = None, None
    else:
        labels_for_index = labels
    if seed is None and shuffle:
        seed = np.random.randint(1_000_000)
    paths, label_array, names = dataset_utils.index_directory(
        op,
        directory,
        labels_for_index,
        formats,
        class_names,
        shuffle,
        seed,
        follow_links,
        verbose,
    )
    if label_mode == "binary" and len(names or np.unique(label_array)) != 2:
        raise ValueError(
            f'{op}: when passing `label_mode="binary"`, there must be exactly 2 class_names. '
            f"Received: class_names={names}"
        )
    num_classes = (
        len(names)
        if names
        else int(label_array.max()) + 1
        if label_array is not None and len(label_array)
        else 0
    )

    def build(subset_name):
        p, lab = dataset_utils.split(paths, label_array, validation_split, subset_name, verbose)
        if not p:
            raise ValueError(
                f"{op}: no files found in directory {os.fspath(directory)}. Allowed formats: "
                f"{formats}"
            )
        files = Dataset.from_tensor_slices(np.asarray(p, dtype=object))
        data = files.map(lambda t: load(t.numpy().decode()))
        if label_mode is not None and lab is not None:
            data = Dataset.zip(
                (data, dataset_utils.labels_dataset(op, lab, label_mode, num_classes))
            )
        if shuffle:
            data = data.shuffle(buffer_size=(batch_size or 1) * 8, seed=seed)
        if batch_size is not None:
            data = data.batch(int(batch_size))
        data.class_names = names
        data.file_paths = list(p)
        return data

    if subset == "both":
        return build("training"), build("validation")
    return build(subset)
