"""`ek.keras.preprocessing`: `image`, `sequence`, `text` and the dataset makers (follows
`tf.keras.preprocessing`; the dataset makers are also in `ek.keras.utils`)."""

from __future__ import annotations

import types

from ..utils_more import save_img as _save_img
from . import image as _image
from . import image_generator as _image_generator
from . import sequence as _sequence
from .audio import audio_dataset_from_directory
from .image import image_dataset_from_directory
from .sequence import pad_sequences
from .text import text_dataset_from_directory
from .timeseries import timeseries_dataset_from_array

__all__ = [
    "audio_dataset_from_directory",
    "image",
    "image_dataset_from_directory",
    "sequence",
    "text_dataset_from_directory",
    "timeseries_dataset_from_array",
]


def _namespace(name: str, **attrs) -> types.ModuleType:
    """A module object holding ``attrs``, so a missing name raises Keras's own
    ``AttributeError: module 'keras.preprocessing.<name>' has no attribute '<attr>'``."""
    module = types.ModuleType(f"keras.preprocessing.{name}")
    module.__dict__.update(attrs)
    return module


image = _namespace(
    "image",
    ImageDataGenerator=_image_generator.ImageDataGenerator,
    DirectoryIterator=_image_generator.DirectoryIterator,
    NumpyArrayIterator=_image_generator.NumpyArrayIterator,
    apply_affine_transform=_image_generator.apply_affine_transform,
    load_img=_image.load_img,
    img_to_array=_image.img_to_array,
    array_to_img=_image.array_to_img,
    smart_resize=_image.smart_resize,
    save_img=_save_img,
)
image.__doc__ = "`tf.keras.preprocessing.image` (see `eagerkernel.runtime.keras.preprocessing`)."
sequence = _namespace(
    "sequence", pad_sequences=pad_sequences, TimeseriesGenerator=_sequence.TimeseriesGenerator
)
