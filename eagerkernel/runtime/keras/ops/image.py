"""`keras.ops.image` (follows ``keras/src/ops/image.py``): image functions, only under
``ops.image`` as in Keras; ``dir()`` lists Keras's names and nothing else. Images are
``(height, width, channels)`` or batched ``(batch, height, width, channels)``
(``data_format="channels_first"``: channels first). The functions live in `image_base`
(colour, resizing, cropping, padding, patches, blur, Sobel, SSIM) and `image_warp`
(affine and perspective transforms, ``map_coordinates``, elastic deformation,
``scale_and_translate``).

>>> [name for name in dir(ek.keras.ops.image) if not name.startswith("_")][:4]
['affine_transform', 'crop_images', 'elastic_transform', 'extract_patches']
"""

from .image_base import (
    crop_images,
    hsv_to_rgb,
    pad_images,
    resize,
    rgb_to_grayscale,
    rgb_to_hsv,
)
from .image_filters import extract_patches, extract_patches_3d, gaussian_blur, sobel_edges, ssim
from .image_warp import (
    affine_transform,
    elastic_transform,
    map_coordinates,
    perspective_transform,
    scale_and_translate,
)

__all__ = [
    "affine_transform",
    "crop_images",
    "elastic_transform",
    "extract_patches",
    "extract_patches_3d",
    "gaussian_blur",
    "hsv_to_rgb",
    "map_coordinates",
    "pad_images",
    "perspective_transform",
    "resize",
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "scale_and_translate",
    "sobel_edges",
    "ssim",
]
