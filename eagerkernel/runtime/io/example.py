"""`tf.train.Example` and its parts as protocol-buffer messages (follows TensorFlow's
``tensorflow/core/example/feature.proto`` and ``example.proto``, package ``tensorflow``).

The message classes are built on first use from a ``FileDescriptorProto`` assembled here with
the `protobuf` package (no protoc, no generated code): ``BytesList``, ``FloatList``,
``Int64List``, ``Feature`` (a oneof ``kind``), ``Features`` (``map<string, Feature>``),
``FeatureList``, ``FeatureLists``, ``Example`` and ``SequenceExample``. Their field names and
numbers are TensorFlow's, so ``SerializeToString`` gives the bytes TensorFlow writes and
``FromString`` reads what TensorFlow wrote; ``str(message)`` is protobuf's text format, as
TensorFlow prints it. They live in a descriptor pool of their own, so importing TensorFlow in
the same process does not clash with them.

`protobuf` is an optional dependency (the ``tfrecord`` extra): ``import eagerkernel`` does not
import it, and the first use of a message class without it raises ImportError naming it.

>>> from eagerkernel.runtime.io import example
>>> ex = example.Example(features=example.Features(feature={
...     "label": example.Feature(int64_list=example.Int64List(value=[7]))}))
>>> ex.SerializeToString()
b'\\n\\x10\\n\\x0e\\n\\x05label\\x12\\x05\\x1a\\x03\\n\\x01\\x07'
>>> print(example.Example.FromString(ex.SerializeToString()))
features {
  feature {
    key: "label"
    value {
      int64_list {
        value: 7
      }
    }
  }
}
<BLANKLINE>
"""

from __future__ import annotations

import threading

# The message classes, reached as module attributes (``example.Example``) through
# ``__getattr__``: they are built on first use.
MESSAGE_NAMES = (
    "BytesList",
    "FloatList",
    "Int64List",
    "Feature",
    "Features",
    "FeatureList",
    "FeatureLists",
    "Example",
    "SequenceExample",
)

# TensorFlow's framework messages used by `ek.io.serialize_tensor` / `parse_tensor`
# (tensor.proto, tensor_shape.proto and types.proto's DataType), in the same pool.
FRAMEWORK_NAMES = ("TensorProto", "TensorShapeProto")

# types.proto's DataType values up to DT_UINT64 (the *_REF values are graph-only).
DATA_TYPES = (
    "DT_INVALID",
    "DT_FLOAT",
    "DT_DOUBLE",
    "DT_INT32",
    "DT_UINT8",
    "DT_INT16",
    "DT_INT8",
    "DT_STRING",
    "DT_COMPLEX64",
    "DT_INT64",
    "DT_BOOL",
    "DT_QINT8",
    "DT_QUINT8",
    "DT_QINT32",
    "DT_BFLOAT16",
    "DT_QINT16",
    "DT_QUINT16",
    "DT_UINT16",
    "DT_COMPLEX128",
    "DT_HALF",
    "DT_RESOURCE",
    "DT_VARIANT",
    "DT_UINT32",
    "DT_UINT64",
)

__all__ = ["DATA_TYPES", "FRAMEWORK_NAMES", "MESSAGE_NAMES", "messages", "protobuf_modules"]

_lock = threading.Lock()
_classes: dict | None = None


def protobuf_modules():
    """``(descriptor_pb2, descriptor_pool, message_factory)`` of the `protobuf` package.

    Raises:
        ImportError: `protobuf` is not installed (the message says how to install it).
    """
    try:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    except ImportError as exc:
        raise ImportError(
            "tf.train.Example and the other protocol-buffer messages need the `protobuf` "
            "package, which is not installed: pip install protobuf (or the eagerkernel "
            "extra: pip install 'eagerkernel[tfrecord]')."
        ) from exc
    return descriptor_pb2, descriptor_pool, message_factory


def _field(msg, name, number, ftype, *, repeated=False, type_name=None, oneof=None, packed=False):
    from google.protobuf.descriptor_pb2 import FieldDescriptorProto as F

    f = msg.field.add(name=name, number=number, type=ftype)
    f.label = F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL
    if type_name is not None:
        f.type_name = type_name
    if oneof is not None:
        f.oneof_index = oneof
    if packed:
        f.options.packed = True
    return f


def _map_field(msg, name, number, entry_name, value_type):
    """A proto3 ``map<string, value_type> name = number;``: a nested ``entry_name`` message
    marked ``map_entry`` and a repeated field of it, as protoc lays a map out."""
    from google.protobuf.descriptor_pb2 import FieldDescriptorProto as F

    entry = msg.nested_type.add(name=entry_name)
    entry.options.map_entry = True
    _field(entry, "key", 1, F.TYPE_STRING)
    _field(entry, "value", 2, F.TYPE_MESSAGE, type_name=value_type)
    _field(
        msg,
        name,
        number,
        F.TYPE_MESSAGE,
        repeated=True,
        type_name=f".tensorflow.{msg.name}.{entry_name}",
    )


def _file_descriptors(descriptor_pb2) -> list:
    """feature.proto and example.proto as ``FileDescriptorProto``s (TensorFlow's field names,
    numbers, types and packing)."""
    F = descriptor_pb2.FieldDescriptorProto
    feature = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/example/feature.proto", package="tensorflow", syntax="proto3"
    )
    m = feature.message_type.add(name="BytesList")
    _field(m, "value", 1, F.TYPE_BYTES, repeated=True)
    m = feature.message_type.add(name="FloatList")
    _field(m, "value", 1, F.TYPE_FLOAT, repeated=True, packed=True)
    m = feature.message_type.add(name="Int64List")
    _field(m, "value", 1, F.TYPE_INT64, repeated=True, packed=True)
    m = feature.message_type.add(name="Feature")
    m.oneof_decl.add(name="kind")
    for number, kind in enumerate(("BytesList", "FloatList", "Int64List"), 1):
        field = kind[:-4].lower() + "_list"
        _field(m, field, number, F.TYPE_MESSAGE, type_name=f".tensorflow.{kind}", oneof=0)
    m = feature.message_type.add(name="Features")
    _map_field(m, "feature", 1, "FeatureEntry", ".tensorflow.Feature")
    m = feature.message_type.add(name="FeatureList")
    _field(m, "feature", 1, F.TYPE_MESSAGE, repeated=True, type_name=".tensorflow.Feature")
    m = feature.message_type.add(name="FeatureLists")
    _map_field(m, "feature_list", 1, "FeatureListEntry", ".tensorflow.FeatureList")

    example = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/example/example.proto", package="tensorflow", syntax="proto3"
    )
    example.dependency.append(feature.name)
    m = example.message_type.add(name="Example")
    _field(m, "features", 1, F.TYPE_MESSAGE, type_name=".tensorflow.Features")
    m = example.message_type.add(name="SequenceExample")
    _field(m, "context", 1, F.TYPE_MESSAGE, type_name=".tensorflow.Features")
    _field(m, "feature_lists", 2, F.TYPE_MESSAGE, type_name=".tensorflow.FeatureLists")
    return [feature, example, *_framework_descriptors(descriptor_pb2)]


def _framework_descriptors(descriptor_pb2) -> list:
    """types.proto (the DataType enum), tensor_shape.proto and tensor.proto (TensorProto
    without its resource-handle and variant fields, which protobuf keeps as unknown fields)."""
    F = descriptor_pb2.FieldDescriptorProto
    types = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/framework/types.proto", package="tensorflow", syntax="proto3"
    )
    enum = types.enum_type.add(name="DataType")
    for number, name in enumerate(DATA_TYPES):
        enum.value.add(name=name, number=number)

    shape = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/framework/tensor_shape.proto", package="tensorflow", syntax="proto3"
    )
    m = shape.message_type.add(name="TensorShapeProto")
    dim = m.nested_type.add(name="Dim")
    _field(dim, "size", 1, F.TYPE_INT64)
    _field(dim, "name", 2, F.TYPE_STRING)
    _field(m, "dim", 2, F.TYPE_MESSAGE, repeated=True, type_name=".tensorflow.TensorShapeProto.Dim")
    _field(m, "unknown_rank", 3, F.TYPE_BOOL)

    tensor = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/framework/tensor.proto", package="tensorflow", syntax="proto3"
    )
    tensor.dependency.extend([types.name, shape.name])
    m = tensor.message_type.add(name="TensorProto")
    _field(m, "dtype", 1, F.TYPE_ENUM, type_name=".tensorflow.DataType")
    _field(m, "tensor_shape", 2, F.TYPE_MESSAGE, type_name=".tensorflow.TensorShapeProto")
    _field(m, "version_number", 3, F.TYPE_INT32)
    _field(m, "tensor_content", 4, F.TYPE_BYTES)
    for name, number, ftype in (
        ("half_val", 13, F.TYPE_INT32),
        ("float_val", 5, F.TYPE_FLOAT),
        ("double_val", 6, F.TYPE_DOUBLE),
        ("int_val", 7, F.TYPE_INT32),
        ("string_val", 8, F.TYPE_BYTES),
        ("scomplex_val", 9, F.TYPE_FLOAT),
        ("int64_val", 10, F.TYPE_INT64),
        ("bool_val", 11, F.TYPE_BOOL),
        ("dcomplex_val", 12, F.TYPE_DOUBLE),
        ("uint32_val", 16, F.TYPE_UINT32),
        ("uint64_val", 17, F.TYPE_UINT64),
    ):
        _field(m, name, number, ftype, repeated=True, packed=ftype != F.TYPE_BYTES)
    _field(m, "float8_val", 18, F.TYPE_BYTES)
    return [types, shape, tensor]


def messages() -> dict:
    """The message classes by name (``"Example"``, ``"Feature"``, ...), built on first call.

    Raises:
        ImportError: `protobuf` is not installed.
    """
    global _classes
    if _classes is not None:
        return _classes
    with _lock:
        if _classes is None:
            descriptor_pb2, descriptor_pool, message_factory = protobuf_modules()
            pool = descriptor_pool.DescriptorPool()
            for fd in _file_descriptors(descriptor_pb2):
                pool.Add(fd)
            classes = {
                name: message_factory.GetMessageClass(
                    pool.FindMessageTypeByName(f"tensorflow.{name}")
                )
                for name in MESSAGE_NAMES + FRAMEWORK_NAMES
            }
            for name in MESSAGE_NAMES:  # shown as where users reach them: ek.train.Example
                classes[name].__module__ = "eagerkernel.train"
            _classes = classes
    return _classes


def __getattr__(name: str):
    if name in MESSAGE_NAMES:
        return messages()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
