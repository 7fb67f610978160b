"""Keras's `ImageDataGenerator` and its iterators `DirectoryIterator` and `NumpyArrayIterator`
(follow `tf.keras.preprocessing.image`, whose documentation and code are the specification).

An iterator yields batches for ever, epoch after epoch (reshuffled each epoch when
``shuffle``), as Keras's do; ``len(iterator)`` is the number of batches in one epoch and
``iterator[i]`` the i-th batch of the current order. Each image is transformed by a random
affine map (`ImageDataGenerator.get_random_transform` / `apply_transform`, the matrices of
Keras's `apply_affine_transform`, resampled by SciPy) and then standardized
(`ImageDataGenerator.standardize`: ``preprocessing_function``, ``rescale``, sample-wise and
feature-wise centering and scaling).
"""

from __future__ import annotations

import os
import threading
import warnings

import numpy as np

from . import dataset_utils
from .image import img_to_array, load_img

# The files `flow_from_directory` reads (Keras's `Iterator.white_list_formats`).
_DIRECTORY_FORMATS = (".png", ".jpg", ".jpeg", ".bmp", ".ppm", ".tif", ".tiff")

__all__ = [
    "DirectoryIterator",
    "ImageDataGenerator",
    "NumpyArrayIterator",
    "apply_affine_transform",
]


def _transform_matrix_offset_center(matrix: np.ndarray, x: int, y: int) -> np.ndarray:
    o_x, o_y = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    offset = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset @ matrix @ reset


def apply_affine_transform(
    x,
    theta=0,
    tx=0,
    ty=0,
    shear=0,
    zx=1,
    zy=1,
    row_axis=1,
    col_axis=2,
    channel_axis=0,
    fill_mode="nearest",
    cval=0.0,
    order=1,
) -> np.ndarray:
    """Rotates (``theta`` degrees), shifts (``tx`` rows, ``ty`` columns), shears (``shear``
    degrees) and zooms (``zx``, ``zy``) the image ``x``, about its centre (follows
    `tf.keras.preprocessing.image.apply_affine_transform`: the same matrices, resampled by
    ``scipy.ndimage.affine_transform`` with ``order``, ``fill_mode`` and ``cval``).

    Raises:
        ImportError: SciPy is not installed (needed for any transformation, as in Keras).
    """
    x = np.asarray(x)
    if sorted((row_axis, col_axis, channel_axis)) != [0, 1, 2]:
        raise ValueError(
            "apply_affine_transform: row_axis, col_axis and channel_axis must be 0, 1 and 2 in "
            f"some order. Received: {row_axis}, {col_axis}, {channel_axis}"
        )
    if x.ndim != 3:
        raise ValueError("apply_affine_transform: input arrays must be multi-channel 2D images.")
    if channel_axis not in (0, 2):
        raise ValueError("apply_affine_transform: channels must be the first or last axis.")
    matrix = None
    if theta != 0:
        t = np.deg2rad(theta)
        matrix = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    if tx != 0 or ty != 0:
        shift = np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]])
        matrix = shift if matrix is None else matrix @ shift
    if shear != 0:
        s = np.deg2rad(shear)
        shear_matrix = np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]])
        matrix = shear_matrix if matrix is None else matrix @ shear_matrix
    if zx != 1 or zy != 1:
        zoom = np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]])
        matrix = zoom if matrix is None else matrix @ zoom
    if matrix is None:
        return x
    try:
        from scipy import ndimage
    except ImportError as exc:
        raise ImportError(
            "Image transformations require SciPy (as in Keras): pip install scipy "
            "(or pip install 'eagerkernel[images]')."
        ) from exc
    h, w = x.shape[row_axis], x.shape[col_axis]
    matrix = _transform_matrix_offset_center(matrix, h, w)
    x = np.rollaxis(x, channel_axis, 0)
    # The matrices are written for (x, y) coordinates; arrays index (row, column).
    if col_axis > row_axis:
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    channels = [
        ndimage.affine_transform(
            channel, matrix[:2, :2], matrix[:2, 2], order=order, mode=fill_mode, cval=cval
        )
        for channel in x
    ]
    return np.rollaxis(np.stack(channels, axis=0), 0, channel_axis + 1)


def _check_range(name: str, value) -> None:
    if isinstance(value, (int, float, np.number)):
        if value < 0:
            raise ValueError(f"ImageDataGenerator: {name} must be >= 0. Received: {value!r}")
        return
    if isinstance(value, (list, tuple, np.ndarray)) and len(value) > 0:
        return
    raise ValueError(f"ImageDataGenerator: {name} must be a float or a list. Received: {value!r}")


class ImageDataGenerator:
    """Generates batches of images with random augmentation (follows
    `tf.keras.preprocessing.image.ImageDataGenerator`; channels last).

    Every argument of Keras's constructor is accepted; those implemented: ``rotation_range``
    (degrees), ``width_shift_range`` / ``height_shift_range`` (a fraction of the size when
    below 1, else pixels; a list: one of its values), ``shear_range`` (degrees),
    ``zoom_range`` (``[1 - z, 1 + z]`` or ``[lower, upper]``), ``channel_shift_range``,
    ``horizontal_flip``, ``vertical_flip``, ``fill_mode`` (``"constant"``, ``"nearest"``,
    ``"reflect"``, ``"wrap"``), ``cval``, ``rescale``, ``preprocessing_function``,
    ``samplewise_center``, ``samplewise_std_normalization``, ``featurewise_center`` and
    ``featurewise_std_normalization`` (after `fit`), ``validation_split``,
    ``zca_whitening`` and ``zca_epsilon`` (after `fit`), ``brightness_range`` (Pillow's
    brightness enhancer, as Keras), ``interpolation_order``, ``dtype``.
    ``data_format="channels_first"`` raises NotImplementedError.

    >>> gen = ImageDataGenerator(rescale=1.0 / 255)
    >>> x = np.full((2, 4, 4, 3), 255.0, np.float32)
    >>> batch = next(gen.flow(x, batch_size=2, shuffle=False))
    >>> batch.shape, float(batch.max())
    ((2, 4, 4, 3), 1.0)
    """

    def __init__(
        self,
        featurewise_center=False,
        samplewise_center=False,
        featurewise_std_normalization=False,
        samplewise_std_normalization=False,
        zca_whitening=False,
        zca_epsilon=1e-6,
        rotation_range=0,
        width_shift_range=0.0,
        height_shift_range=0.0,
        brightness_range=None,
        shear_range=0.0,
        zoom_range=0.0,
        channel_shift_range=0.0,
        fill_mode="nearest",
        cval=0.0,
        horizontal_flip=False,
        vertical_flip=False,
        rescale=None,
        preprocessing_function=None,
        data_format=None,
        validation_split=0.0,
        interpolation_order=1,
        dtype=None,
    ):
        if brightness_range is not None and (
            not isinstance(brightness_range, (tuple, list, np.ndarray))
            or len(brightness_range) != 2
        ):
            raise ValueError(
                "ImageDataGenerator: `brightness_range` should be tuple or list of two floats. "
                f"Received: {brightness_range!r}"
            )
        if zca_whitening:
            if not featurewise_center:
                featurewise_center = True
                warnings.warn(
                    "This ImageDataGenerator specifies `zca_whitening`, which overrides "
                    "setting of `featurewise_center`.",
                    stacklevel=2,
                )
            if featurewise_std_normalization:
                featurewise_std_normalization = False
                warnings.warn(
                    "This ImageDataGenerator specifies `zca_whitening` which overrides "
                    "setting of `featurewise_std_normalization`.",
                    stacklevel=2,
                )
        if featurewise_std_normalization and not featurewise_center:
            featurewise_center = True
            warnings.warn(
                "This ImageDataGenerator specifies `featurewise_std_normalization`, which "
                "overrides setting of `featurewise_center`.",
                stacklevel=2,
            )
        if samplewise_std_normalization and not samplewise_center:
            samplewise_center = True
            warnings.warn(
                "This ImageDataGenerator specifies `samplewise_std_normalization`, which "
                "overrides setting of `samplewise_center`.",
                stacklevel=2,
            )
        if data_format not in (None, "channels_last"):
            raise NotImplementedError(
                "ImageDataGenerator: only data_format='channels_last' is implemented. "
                f"Received: data_format={data_format!r}"
            )
        if fill_mode not in ("constant", "nearest", "reflect", "wrap"):
            raise ValueError(
                'ImageDataGenerator: fill_mode must be one of "constant", "nearest", '
                f'"reflect" or "wrap". Received: fill_mode={fill_mode!r}'
            )
        if not 0 <= validation_split < 1:
            raise ValueError(
                "ImageDataGenerator: validation_split must be strictly between 0 and 1. "
                f"Received: {validation_split!r}"
            )
        for name, value in (
            ("width_shift_range", width_shift_range),
            ("height_shift_range", height_shift_range),
        ):
            _check_range(name, value)
        if np.isscalar(zoom_range):
            zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(np.isscalar(z) for z in zoom_range):
            zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(
                "ImageDataGenerator: `zoom_range` should be a float or a tuple or list of two "
                f"floats. Received: {zoom_range!r}"
            )
        if preprocessing_function is not None and not callable(preprocessing_function):
            raise TypeError(
                "ImageDataGenerator: preprocessing_function must be callable. Received: "
                f"{preprocessing_function!r}"
            )
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.zca_whitening_matrix = None
        self.brightness_range = brightness_range
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.shear_range = shear_range
        self.zoom_range = zoom_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.data_format = "channels_last"
        self.validation_split = validation_split
        self.interpolation_order = interpolation_order
        self.dtype = dtype or "float32"
        self.row_axis, self.col_axis, self.channel_axis = 0, 1, 2
        self.mean = None
        self.std = None

    # -- iterators --------------------------------------------------------------------------
    def flow(
        self,
        x,
        y=None,
        batch_size=32,
        shuffle=True,
        sample_weight=None,
        seed=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        ignore_class_split=False,
        subset=None,
    ) -> NumpyArrayIterator:
        """Batches of ``x`` (``(n, height, width, channels)``), with ``y`` and
        ``sample_weight`` when given: ``x``, ``(x, y)`` or ``(x, y, sample_weight)``."""
        return NumpyArrayIterator(
            x,
            y,
            self,
            batch_size,
            shuffle,
            sample_weight,
            seed,
            save_to_dir,
            save_prefix,
            save_format,
            ignore_class_split,
            subset,
        )

    def flow_from_directory(
        self,
        directory,
        target_size=(256, 256),
        color_mode="rgb",
        classes=None,
        class_mode="categorical",
        batch_size=32,
        shuffle=True,
        seed=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        follow_links=False,
        subset=None,
        interpolation="nearest",
        keep_aspect_ratio=False,
    ) -> DirectoryIterator:
        """Batches of the images under ``directory``'s class subdirectories: ``(images,
        labels)`` with one-hot float32 labels for ``class_mode="categorical"`` (see
        `DirectoryIterator`)."""
        return DirectoryIterator(
            directory,
            self,
            target_size,
            color_mode,
            classes,
            class_mode,
            batch_size,
            shuffle,
            seed,
            save_to_dir,
            save_prefix,
            save_format,
            follow_links,
            subset,
            interpolation,
            keep_aspect_ratio,
        )

    # -- transformations --------------------------------------------------------------------
    def standardize(self, x: np.ndarray) -> np.ndarray:
        """Applies, in Keras's order, ``preprocessing_function``, ``rescale`` and the
        sample-wise and feature-wise normalizations to one image or a batch."""
        if self.preprocessing_function is not None:
            x = self.preprocessing_function(x)
        if self.rescale:
            x = x * self.rescale
        if self.samplewise_center:
            x = x - np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x = x / (np.std(x, keepdims=True) + 1e-6)
        for flag, stat, name in (
            (self.featurewise_center, self.mean, "featurewise_center"),
            (self.featurewise_std_normalization, self.std, "featurewise_std_normalization"),
            (self.zca_whitening, self.zca_whitening_matrix, "zca_whitening"),
        ):
            if flag and stat is None:  # Keras warns and leaves the data as it is
                warnings.warn(
                    f"This ImageDataGenerator specifies `{name}`, but it hasn't been fit on any "
                    "training data. Fit it first by calling `.fit(numpy_data)`.",
                    stacklevel=2,
                )
        if self.featurewise_center and self.mean is not None:
            x = x - self.mean
        if self.featurewise_std_normalization and self.std is not None:
            x = x / (self.std + 1e-6)
        if self.zca_whitening and self.zca_whitening_matrix is not None:
            flat = x.reshape(-1, int(np.prod(x.shape[-3:])))
            x = np.reshape(flat @ self.zca_whitening_matrix, x.shape)
        return x

    def get_random_transform(self, img_shape, seed=None) -> dict:
        """Random parameters for one image (Keras's dictionary: ``theta``, ``tx``, ``ty``,
        ``shear``, ``zx``, ``zy``, ``flip_horizontal``, ``flip_vertical``,
        ``channel_shift_intensity``, ``brightness``); ``seed`` makes them reproducible."""
        return self._random_params(
            img_shape, np.random if seed is None else np.random.RandomState(seed)
        )

    def _random_params(self, img_shape, rng) -> dict:
        theta = rng.uniform(-self.rotation_range, self.rotation_range) if self.rotation_range else 0
        tx = self._shift(rng, self.height_shift_range, img_shape[self.row_axis])
        ty = self._shift(rng, self.width_shift_range, img_shape[self.col_axis])
        shear = rng.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = rng.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = bool(rng.random_sample() < 0.5) and self.horizontal_flip
        flip_vertical = bool(rng.random_sample() < 0.5) and self.vertical_flip
        channel_shift = None
        if self.channel_shift_range != 0:
            channel_shift = rng.uniform(-self.channel_shift_range, self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = rng.uniform(self.brightness_range[0], self.brightness_range[1])
        return {
            "theta": theta,
            "tx": tx,
            "ty": ty,
            "shear": shear,
            "zx": zx,
            "zy": zy,
            "flip_horizontal": flip_horizontal,
            "flip_vertical": flip_vertical,
            "channel_shift_intensity": channel_shift,
            "brightness": brightness,
        }

    @staticmethod
    def _shift(rng, shift_range, size: int) -> float:
        if not np.any(shift_range):
            return 0
        try:  # a list, or an int: one of its values (an int n: 0..n-1), either sign
            shift = rng.choice(shift_range)
            shift *= rng.choice([-1, 1])
        except ValueError:  # a float
            shift = rng.uniform(-shift_range, shift_range)
        if np.max(shift_range) < 1:
            shift *= size
        return shift

    def apply_transform(self, x: np.ndarray, transform_parameters: dict) -> np.ndarray:
        """Applies the transformation ``transform_parameters`` (see `get_random_transform`;
        missing keys mean no change) to one image ``(height, width, channels)``."""
        p = transform_parameters
        x = apply_affine_transform(
            x,
            p.get("theta", 0),
            p.get("tx", 0),
            p.get("ty", 0),
            p.get("shear", 0),
            p.get("zx", 1),
            p.get("zy", 1),
            row_axis=self.row_axis,
            col_axis=self.col_axis,
            channel_axis=self.channel_axis,
            fill_mode=self.fill_mode,
            cval=self.cval,
            order=self.interpolation_order,
        )
        if p.get("channel_shift_intensity") is not None:
            x = np.rollaxis(x, self.channel_axis, 0)
            lo, hi = np.min(x), np.max(x)
            x = np.clip(x + p["channel_shift_intensity"], lo, hi)
            x = np.rollaxis(x, 0, self.channel_axis + 1)
        if p.get("flip_horizontal", False):
            x = x[:, ::-1]
        if p.get("flip_vertical", False):
            x = x[::-1]
        if p.get("brightness") is not None:
            x = _brightness_shift(x, p["brightness"])
        return x

    def random_transform(self, x: np.ndarray, seed=None) -> np.ndarray:
        """One image with a random transformation applied."""
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment: bool = False, rounds: int = 1, seed=None) -> None:
        """Computes the feature-wise mean and standard deviation of ``x`` (``(n, height,
        width, channels)``), over ``rounds`` augmented copies when ``augment``."""
        x = np.array(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(
                f"ImageDataGenerator.fit: input to .fit() should have rank 4. Got array with "
                f"shape: {x.shape}"
            )
        rng = np.random if seed is None else np.random.RandomState(seed)
        if self.rescale:
            x *= self.rescale
        if augment:
            x = np.concatenate(
                [
                    np.stack(
                        [self.apply_transform(i, self._random_params(i.shape, rng)) for i in x]
                    )
                    for _ in range(rounds)
                ]
            ).astype(self.dtype)
        if self.featurewise_center:
            self.mean = np.mean(x, axis=(0, 1, 2)).reshape(1, 1, -1)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.std(x, axis=(0, 1, 2)).reshape(1, 1, -1)
            x /= self.std + 1e-6
        if self.zca_whitening:
            flat = x.reshape(len(x), -1)
            u, sv, _ = np.linalg.svd(flat.T, full_matrices=False)
            s_inv = np.sqrt(len(x)) / (sv + self.zca_epsilon)
            self.zca_whitening_matrix = (u * s_inv) @ u.T


def _brightness_shift(x: np.ndarray, brightness: float) -> np.ndarray:
    """Keras's `apply_brightness_shift(x, brightness, scale=False)`: Pillow's brightness
    enhancer on the image mapped to 0-255, mapped back to the image's range."""
    from PIL import ImageEnhance

    from .image import array_to_img

    lo, hi = float(np.min(x)), float(np.max(x))
    local_scale = lo < 0 or hi > 255
    img = ImageEnhance.Brightness(array_to_img(x, scale=local_scale)).enhance(brightness)
    out = img_to_array(img)
    if local_scale:
        out = out / 255 * (hi - lo) + lo
    return out


class _Iterator:
    """Keras's batch iterator: endless epochs, reshuffled with ``seed + epoch``."""

    def __init__(self, n: int, batch_size: int, shuffle: bool, seed):
        if isinstance(batch_size, bool) or int(batch_size) <= 0:
            raise ValueError(f"batch_size must be a positive integer. Received: {batch_size!r}")
        self.n, self.batch_size, self.shuffle, self.seed = n, int(batch_size), shuffle, seed
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None

    def _rng(self):
        # Keras seeds NumPy's global generator with seed + batches seen; a generator of our
        # own gives the same numbers without touching the global one.
        if self.seed is None:
            return np.random
        return np.random.RandomState(self.seed + self.total_batches_seen)

    def _set_index_array(self, rng=None) -> None:
        self.index_array = np.arange(self.n)
        if self.shuffle:
            self.index_array = (rng or self._rng()).permutation(self.n)

    def __len__(self) -> int:
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self) -> None:
        self._set_index_array()

    def reset(self) -> None:
        self.batch_index = 0

    def __getitem__(self, idx: int):
        if idx >= len(self):
            raise ValueError(
                f"Asked to retrieve element {idx}, but the Sequence has length {len(self)}"
            )
        rng = self._rng()
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array(rng)
        chunk = self.index_array[self.batch_size * idx : self.batch_size * (idx + 1)]
        return self._batch(chunk, rng)

    def __iter__(self):
        return self

    def __next__(self):
        with self.lock:
            if self.n == 0:
                raise ValueError("The iterator has no samples.")
            rng = self._rng()
            if self.batch_index == 0:
                self._set_index_array(rng)
            start = self.batch_index * self.batch_size
            chunk = self.index_array[start : start + self.batch_size]
            self.batch_index = self.batch_index + 1 if start + self.batch_size < self.n else 0
            self.total_batches_seen += 1
        return self._batch(chunk, rng)

    def next(self):
        return self.__next__()

    def _save(self, batch: np.ndarray, generator, index_array) -> None:
        if self.save_to_dir is None:
            return
        from .image import array_to_img

        for i, j in enumerate(index_array):
            img = array_to_img(batch[i], scale=True)
            name = f"{self.save_prefix}_{j}_{np.random.randint(10_000)}.{self.save_format}"
            img.save(os.path.join(self.save_to_dir, name))

    def _transform(self, x: np.ndarray, generator, rng) -> np.ndarray:
        if generator is None:
            return x
        x = generator.apply_transform(x, generator._random_params(x.shape, rng))
        return generator.standardize(x)


class DirectoryIterator(_Iterator):
    """Batches of the images of a directory (follows Keras's `DirectoryIterator`; made by
    `ImageDataGenerator.flow_from_directory`).

    Attributes: ``filenames`` (relative to ``directory``), ``filepaths``, ``classes`` (each
    file's class index), ``class_indices`` (name to index), ``num_classes``, ``samples``.
    Labels: one-hot float32 (``class_mode="categorical"``), float32 0/1 (``"binary"``),
    int32 (``"sparse"``), the images themselves (``"input"``) or none (None).
    """

    def __init__(
        self,
        directory,
        image_data_generator,
        target_size=(256, 256),
        color_mode="rgb",
        classes=None,
        class_mode="categorical",
        batch_size=32,
        shuffle=True,
        seed=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        follow_links=False,
        subset=None,
        interpolation="nearest",
        keep_aspect_ratio=False,
        dtype=None,
    ):
        if class_mode not in ("categorical", "binary", "sparse", "input", None):
            raise ValueError(
                f"flow_from_directory: invalid class_mode {class_mode!r}; expected one of "
                '"categorical", "binary", "sparse", "input" or None.'
            )
        if color_mode not in ("grayscale", "rgb", "rgba"):
            raise ValueError(
                f'flow_from_directory: invalid color mode {color_mode!r}; expected "rgb", '
                '"rgba", or "grayscale".'
            )
        gen = image_data_generator
        split = gen.validation_split if gen is not None else 0.0
        if subset not in (None, "training", "validation"):
            raise ValueError(
                f'flow_from_directory: invalid subset name {subset!r}; expected "training" '
                'or "validation".'
            )
        self.directory = os.fspath(directory)
        self.image_data_generator = gen
        self.target_size = tuple(target_size)
        self.color_mode = color_mode
        self.class_mode = class_mode
        self.interpolation = interpolation
        self.keep_aspect_ratio = keep_aspect_ratio
        self.dtype = dtype or (gen.dtype if gen is not None else "float32")
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, save_format
        channels = {"grayscale": 1, "rgb": 3, "rgba": 4}[color_mode]
        self.image_shape = (*self.target_size, channels)
        paths, labels, names = dataset_utils.index_directory(
            "flow_from_directory",
            self.directory,
            "inferred",
            _DIRECTORY_FORMATS,
            classes,
            shuffle=False,
            follow_links=follow_links,
            verbose=False,
        )
        if subset is not None and split:
            # Keras splits each class: the first `validation_split` of its files validate.
            keep = []
            for k in range(len(names)):
                idx = np.flatnonzero(labels == k)
                cut = int(split * len(idx))
                keep += list(idx[:cut] if subset == "validation" else idx[cut:])
            keep = sorted(keep)
            paths, labels = [paths[i] for i in keep], labels[keep]
        self.class_indices = {name: k for k, name in enumerate(names)}
        self.num_classes = len(names)
        self.filepaths = paths
        self.filenames = [os.path.relpath(p, self.directory) for p in paths]
        self.classes = labels
        self.samples = len(paths)
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        super().__init__(self.samples, batch_size, shuffle, seed)

    def _batch(self, index_array, rng):
        x = np.zeros((len(index_array), *self.image_shape), dtype=self.dtype)
        for i, j in enumerate(index_array):
            img = load_img(
                self.filepaths[j],
                color_mode=self.color_mode,
                target_size=self.target_size,
                interpolation=self.interpolation,
                keep_aspect_ratio=self.keep_aspect_ratio,
            )
            x[i] = self._transform(
                img_to_array(img, dtype=self.dtype), self.image_data_generator, rng
            )
        self._save(x, self.image_data_generator, index_array)
        labels = self.classes[index_array]
        if self.class_mode == "input":
            return x, x.copy()
        if self.class_mode == "sparse":
            return x, labels.astype(self.dtype)
        if self.class_mode == "binary":
            return x, labels.astype(self.dtype)
        if self.class_mode == "categorical":
            return x, np.eye(self.num_classes, dtype=self.dtype)[labels]
        return x


class NumpyArrayIterator(_Iterator):
    """Batches of arrays in memory (follows Keras's `NumpyArrayIterator`; made by
    `ImageDataGenerator.flow`)."""

    def __init__(
        self,
        x,
        y,
        image_data_generator,
        batch_size=32,
        shuffle=False,
        sample_weight=None,
        seed=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        ignore_class_split=False,
        subset=None,
        dtype=None,
    ):
        gen = image_data_generator
        self.dtype = dtype or (gen.dtype if gen is not None else "float32")
        x = np.asarray(getattr(x, "numpy", lambda: x)(), dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(
                f"flow: input data should have rank 4 (batch, height, width, channels). "
                f"Received: shape {x.shape}"
            )
        if y is not None:
            y = np.asarray(getattr(y, "numpy", lambda: y)())
            if len(y) != len(x):
                raise ValueError(
                    "flow: `x` (images tensor) and `y` (labels) should have the same length. "
                    f"Found: x.shape = {x.shape}, y.shape = {y.shape}"
                )
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight)
            if len(sample_weight) != len(x):
                raise ValueError(
                    "flow: `x` (images tensor) and `sample_weight` should have the same "
                    f"length. Found: x.shape = {x.shape}, sample_weight.shape = "
                    f"{sample_weight.shape}"
                )
        split = gen.validation_split if gen is not None else 0.0
        if subset is not None:
            if subset not in ("training", "validation"):
                raise ValueError(
                    f'flow: invalid subset name {subset!r}; expected "training" or "validation".'
                )
            cut = int(len(x) * split)
            if (
                y is not None
                and not ignore_class_split
                and not np.array_equal(np.unique(y[:cut]), np.unique(y[cut:]))
            ):
                raise ValueError(
                    "flow: training and validation subsets have different number of "
                    "classes after the split. If your numpy arrays are sorted by the "
                    "label, you might want to shuffle them."
                )
            keep = slice(0, cut) if subset == "validation" else slice(cut, None)
            x = x[keep]
            y = None if y is None else y[keep]
            sample_weight = None if sample_weight is None else sample_weight[keep]
        self.x, self.y, self.sample_weight = x, y, sample_weight
        self.image_data_generator = gen
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, save_format
        super().__init__(len(x), batch_size, shuffle, seed)

    def _batch(self, index_array, rng):
        gen = self.image_data_generator
        x = np.stack([self._transform(self.x[j], gen, rng) for j in index_array])
        x = x.astype(self.dtype)
        self._save(x, self.image_data_generator, index_array)
        if self.y is None:
            return x
        out = (x, self.y[index_array])
        if self.sample_weight is not None:
            out += (self.sample_weight[index_array],)
        return out
