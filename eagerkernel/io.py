"""`ek.io`: file and byte ops under TensorFlow's `tf.io` names."""

from __future__ import annotations

from .runtime.data.readers import decode_csv
from .runtime.io import gfile
from .runtime.io.image_codecs import (
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
)
from .runtime.io.image_encoders import encode_jpeg, encode_png
from .runtime.io.parsing import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    VarLenFeature,
    parse_example,
    parse_single_example,
)
from .runtime.io.sequence_parsing import parse_sequence_example, parse_single_sequence_example
from .runtime.io.sparse_feature import SparseFeature
from .runtime.io.tensor_proto import parse_tensor, serialize_tensor
from .runtime.io.tfrecord import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)
from .runtime.ops.io_ops import (
    decode_base64,
    decode_compressed,
    decode_json_example,
    decode_raw,
    encode_base64,
    is_jpeg,
    matching_files,
    read_file,
    write_file,
)

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "RaggedFeature",
    "SparseFeature",
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "VarLenFeature",
    "decode_base64",
    "decode_bmp",
    "decode_compressed",
    "decode_csv",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_json_example",
    "decode_png",
    "decode_raw",
    "encode_base64",
    "encode_jpeg",
    "encode_png",
    "gfile",
    "is_jpeg",
    "matching_files",
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_tensor",
    "read_file",
    "serialize_tensor",
    "tf_record_iterator",
    "write_file",
]
