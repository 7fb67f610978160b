"""User-defined composite values: `ExtensionType` (follows `tf.experimental.ExtensionType`).

A subclass declares typed fields with annotations::

    class MaskedTensor(ek.experimental.ExtensionType):
        values: ek.Tensor
        mask: ek.Tensor

and gets, as TensorFlow's guide describes them: a constructor taking one argument per field
(with the class attribute as default), each value checked and converted to its declared type
(`Tensor` fields through `convert_to_tensor`, ``Tuple[...]`` to tuples, ``Mapping[...]`` to an
immutable mapping, ``Union``/``Optional`` by trying each type in turn, nested ExtensionTypes
by type), ``__validate__`` run after construction, immutable fields (a custom ``__init__`` may
set them; afterwards setting or deleting one raises AttributeError), a ``__repr__``, an
``__eq__`` that compares field by field (False for another type or spec, else a boolean
scalar Tensor), and a nested ``Spec`` class (`ExtensionTypeSpec`) describing the value
without its tensors' contents (`type_spec_from_value`).

An ExtensionType is a `CompositeTensor`: ``ek.function`` keys its traces on the value's
non-tensor fields and its tensors' dtypes and shapes (new tensor values do not retrace);
`BatchableExtensionType` values are sliced and stacked by `Dataset.from_tensor_slices`,
``batch`` and ``unbatch`` (each Tensor field along its first axis, a `TensorShape` field by
its first dimension). The public elementwise ops dispatch to handlers registered with
`dispatch_for_unary_elementwise_apis` / `dispatch_for_binary_elementwise_apis`, and the APIs
listed in `DISPATCHABLE_APIS` to handlers registered with `dispatch_for_api` (all in
``extension_dispatch.py``).

Not supported (they raise): saving ExtensionType signatures in a SavedModel, Keras
``Input(type_spec=...)``, ``tf.nest`` on ExtensionTypes with ``expand_composites``.
"""

from __future__ import annotations

import collections.abc
import inspect
import re
import sys
import types
import typing

from .core import dtypes
from .core.composite import CompositeTensor
from .core.tensor import Tensor, TensorShape, convert_to_tensor

__all__ = [
    "BatchableExtensionType",
    "ExtensionType",
    "ExtensionTypeSpec",
    "type_spec_from_value",
]

_MISSING = object()


class ImmutableDict(collections.abc.Mapping):
    """A read-only mapping: what a ``Mapping[...]`` field holds (its items cannot change).

    >>> d = ImmutableDict({"a": 1})
    >>> d["a"], len(d), dict(d)
    (1, 1, {'a': 1})
    """

    __slots__ = ("_data",)

    def __init__(self, data=()):
        object.__setattr__(self, "_data", dict(data))

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __setattr__(self, name, value):
        raise AttributeError("ImmutableDict is read-only.")

    def __repr__(self) -> str:
        return f"ImmutableDict({self._data!r})"

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._data.items(), key=lambda kv: repr(kv[0]))))


class _Field:
    __slots__ = ("annotation", "default", "name")

    def __init__(self, name: str, annotation, default):
        self.name, self.annotation, self.default = name, annotation, default


class _Building(type):
    """Metaclass of ExtensionTypes and their specs: ``Cls(...)`` runs ``__init__`` with the
    fields writable, then converts and checks them (`_seal`) and makes them read-only."""

    def __call__(cls, *args, **kwargs):
        obj = cls.__new__(cls)
        object.__setattr__(obj, "_ek_open", True)
        try:
            cls.__init__(obj, *args, **kwargs)
        finally:
            object.__setattr__(obj, "_ek_open", False)
        obj._ek_seal()
        return obj


def _collect_fields(cls) -> dict:
    """The fields of ``cls`` and of its field-declaring bases, base fields first."""
    fields: dict = {}
    for base in reversed(cls.__mro__[1:]):
        fields.update(base.__dict__.get("_ek_own_fields", {}))
    own = {}
    for name, annotation in inspect.get_annotations(cls).items():
        text = annotation if isinstance(annotation, str) else ""
        if typing.get_origin(annotation) is typing.ClassVar or text.startswith(
            ("ClassVar", "typing.ClassVar")
        ):
            continue
        default = cls.__dict__.get(name, _MISSING)
        if default is not _MISSING and not isinstance(default, (property, staticmethod)):
            delattr(cls, name)  # instances hold the value; the class keeps no shadow of it
        else:
            default = _MISSING
        own[name] = _Field(name, annotation, default)
    cls._ek_own_fields = own
    fields.update(own)
    required_after_default = None
    for f in fields.values():
        if f.default is _MISSING and required_after_default is not None:
            raise TypeError(
                f"{cls.__name__}: field {f.name!r} has no default but follows field "
                f"{required_after_default!r}, which has one."
            )
        if f.default is not _MISSING:
            required_after_default = f.name
    return fields


def _make_init(fields: dict, apply_defaults: bool = True):
    params = [
        inspect.Parameter(
            f.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if f.default is _MISSING else f.default,
        )
        for f in fields.values()
    ]
    signature = inspect.Signature([inspect.Parameter("self", 0), *params])

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        if apply_defaults:
            bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            object.__setattr__(self, name, value)

    __init__.__signature__ = signature
    return __init__


class _Sealed:
    """The field protocol shared by values and specs: read-only fields after construction."""

    # Set per class (no annotations here: `typing.get_type_hints` reads a subclass's
    # annotations, with its bases', in the subclass's module).
    _ek_fields = ImmutableDict()
    _ek_hints = None

    def __setattr__(self, name, value):
        if self.__dict__.get("_ek_open"):
            object.__setattr__(self, name, value)
            return
        raise AttributeError(
            f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionType."
        )

    def __delattr__(self, name):
        if self.__dict__.get("_ek_open"):
            object.__delattr__(self, name)
            return
        raise AttributeError(
            f"Cannot mutate attribute `{name}` outside the custom constructor of ExtensionType."
        )

    @classmethod
    def _ek_resolved(cls) -> dict:
        """``{field: type}`` with string annotations (``from __future__ import annotations``,
        forward references such as ``Tuple["Node", ...]``) resolved, once per class."""
        hints = cls.__dict__.get("_ek_hints")
        if hints is None:
            if issubclass(cls, ExtensionTypeSpec):
                hints = cls._ek_value_cls._ek_resolved()
            else:
                # Where the class statement ran: its module's globals and, for a class made
                # inside a function, that function's locals then (`__init_subclass__`).
                module = sys.modules.get(cls.__module__)
                namespace = dict(cls.__dict__.get("_ek_globals") or vars(module or sys))
                namespace.update(cls.__dict__.get("_ek_locals") or {})
                namespace.setdefault(cls.__name__, cls)
                namespace.setdefault("tf", _tf_module())
                try:
                    resolved = typing.get_type_hints(cls, globalns=namespace, localns=namespace)
                except Exception as e:
                    raise TypeError(
                        f"{cls.__name__}: cannot resolve the field annotations ({e})."
                    ) from None
                hints = {name: resolved[name] for name in cls._ek_fields}
            cls._ek_hints = hints
        return hints

    def _ek_field_items(self):
        return [(name, self.__dict__[name]) for name in self._ek_fields]


def _tf_module():
    import eagerkernel

    return eagerkernel


def _check_annotation(owner: str, name: str, tp) -> None:
    """Raises TypeError for an annotation a field cannot have (TensorFlow's supported set)."""
    if isinstance(tp, (str, typing.ForwardRef)):
        return  # resolved at the first construction
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in _UNIONS or origin is tuple:
        for a in args:
            if a is not Ellipsis:
                _check_annotation(owner, name, a)
        return
    if origin is collections.abc.Mapping:
        for a in args:
            _check_annotation(owner, name, a)
        return
    if tp in _SCALAR_TYPES or tp in (Tensor, TensorShape, dtypes.DType, type(None), None):
        return
    if isinstance(tp, type) and (
        issubclass(tp, (CompositeTensor, ExtensionTypeSpec)) or _is_spec_type(tp)
    ):
        return
    raise TypeError(
        f"{owner}.{name}: unsupported type annotation {tp!r}. Fields may be Tensors, "
        "TensorShapes, DTypes, Python scalars (int, float, str, bool, bytes, None), "
        "ExtensionTypes, RaggedTensors, SparseTensors, TypeSpecs, and Tuple, Mapping, "
        "Union or Optional of those."
    )


_SCALAR_TYPES = (int, float, str, bool, bytes)
_UNIONS = (typing.Union, types.UnionType)  # Union[A, B] and A | B


def _is_spec_type(tp) -> bool:
    from .data.structure import TensorSpec

    return issubclass(tp, TensorSpec) or tp.__name__.endswith("Spec")


def _convert(value, tp, where: str):
    """``value`` checked against and converted to the field type ``tp`` (TypeError if not)."""
    if tp is typing.Any:
        return value
    origin = typing.get_origin(tp)
    if origin in _UNIONS:
        errors = []
        for option in typing.get_args(tp):
            try:
                return _convert(value, option, where)
            except TypeError as e:
                errors.append(str(e))
        raise TypeError(
            f"{where}: expected one of {_type_name(tp)}, got {_value_text(value)}."
        ) from None
    if origin is tuple:
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"{where}: expected a tuple, got {_value_text(value)}.")
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise TypeError(
                f"{where}: expected a tuple of {len(args)} items, got {len(value)} items."
            )
        return tuple(_convert(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(args, value)))
    if origin is collections.abc.Mapping:
        if not isinstance(value, collections.abc.Mapping):
            raise TypeError(f"{where}: expected a Mapping, got {_value_text(value)}.")
        key_type, value_type = typing.get_args(tp) or (typing.Any, typing.Any)
        return ImmutableDict(
            (_convert(k, key_type, f"{where} key"), _convert(v, value_type, f"{where}[{k!r}]"))
            for k, v in value.items()
        )
    if tp is Tensor:
        if isinstance(value, Tensor):
            return value if type(value) is Tensor else convert_to_tensor(value)
        if isinstance(value, (CompositeTensor, ExtensionTypeSpec)) or value is None:
            raise TypeError(f"{where}: expected a Tensor, got {_value_text(value)}.")
        try:
            return convert_to_tensor(value)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"{where}: expected a Tensor, got {_value_text(value)} ({e})."
            ) from None
    if tp is TensorShape:
        try:
            return TensorShape(value)
        except (TypeError, ValueError):
            raise TypeError(f"{where}: expected a TensorShape, got {_value_text(value)}.") from None
    if tp is dtypes.DType:
        try:
            return dtypes.as_dtype(value)
        except (TypeError, ValueError):
            raise TypeError(f"{where}: expected a DType, got {_value_text(value)}.") from None
    if tp is None or tp is type(None):
        if value is not None:
            raise TypeError(f"{where}: expected None, got {_value_text(value)}.")
        return None
    if tp in _SCALAR_TYPES:
        if tp is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, tp) or (tp is int and isinstance(value, bool)):
            raise TypeError(f"{where}: expected {tp.__name__}, got {_value_text(value)}.")
        return value
    if isinstance(tp, type):
        if not isinstance(value, tp):
            raise TypeError(f"{where}: expected {tp.__name__}, got {_value_text(value)}.")
        return value
    raise TypeError(f"{where}: unsupported type annotation {tp!r}.")


def _type_name(tp) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _value_text(value) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} of type {type(value).__name__}"


# -- specs -------------------------------------------------------------------------------------


class ExtensionTypeSpec(_Sealed, metaclass=_Building):
    """The type of an ExtensionType value (follows `tf.experimental.ExtensionTypeSpec`): the
    same fields, each Tensor replaced by its `TensorSpec`. ``Cls.Spec`` is the subclass for
    ``Cls``; its constructor takes the fields as ``Cls``'s does. Specs compare equal when all
    fields do, and hash accordingly."""

    _ek_value_cls = None  # the ExtensionType class, set on each generated Spec

    @classmethod
    def _ek_value_type(cls):
        return cls._ek_value_cls

    @property
    def value_type(self):
        """The ExtensionType class this spec describes."""
        return type(self)._ek_value_cls

    def _ek_seal(self) -> None:
        cls = type(self)
        values = self.__dict__
        for field, f in cls._ek_fields.items():
            if field not in values:
                if f.default is _MISSING:
                    raise TypeError(f"{cls.__qualname__}: missing required field {field!r}.")
                hint = cls._ek_resolved()[field]
                values[field] = _spec_of(_convert(f.default, hint, f"{cls.__qualname__}.{field}"))
            values[field] = _frozen(values[field])

    def _ek_items(self) -> tuple:
        return tuple((k, self.__dict__.get(k)) for k in type(self)._ek_fields)

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self._ek_items() == other._ek_items()

    def __hash__(self) -> int:
        return hash((type(self).__qualname__, self._ek_items()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._ek_items())
        return f"{type(self).__qualname__}({fields})"

    def is_compatible_with(self, other) -> bool:
        """Whether ``other`` (a spec or a value) has this type, equal non-tensor fields and
        tensors of compatible shapes and equal dtypes."""
        if isinstance(other, ExtensionType):
            other = other._type_spec
        if type(other) is not type(self):
            return False
        return all(_compatible(a, b) for (_, a), (_, b) in zip(self._ek_items(), other._ek_items()))


def _frozen(value):
    """A spec field made hashable: dicts become ImmutableDicts, lists tuples."""
    if isinstance(value, dict):
        return ImmutableDict((k, _frozen(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _spec_base(cls) -> type:
    """The generated spec's base: the nearest field-declaring base's Spec, else the root."""
    for base in cls.__mro__[1:]:
        spec = base.__dict__.get("Spec")
        if isinstance(spec, type) and issubclass(spec, ExtensionTypeSpec):
            return spec
    return ExtensionTypeSpec


def _compatible(a, b) -> bool:
    if hasattr(a, "is_compatible_with") and not isinstance(a, (Tensor, TensorShape)):
        return a.is_compatible_with(b)
    if isinstance(a, TensorShape):
        return a.is_compatible_with(b)
    if isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping):
        return a.keys() == b.keys() and all(_compatible(a[k], b[k]) for k in a)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_compatible(x, y) for x, y in zip(a, b))
    return a == b


def _spec_of(value):
    if isinstance(value, Tensor):
        from .data.structure import TensorSpec

        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, ExtensionType):
        return value._type_spec
    if isinstance(value, collections.abc.Mapping):
        return ImmutableDict((k, _spec_of(v)) for k, v in value.items())
    if isinstance(value, tuple):
        return tuple(_spec_of(v) for v in value)
    if isinstance(value, CompositeTensor):
        return type_spec_from_value(value)
    return value


# -- values ------------------------------------------------------------------------------------


class ExtensionType(_Sealed, CompositeTensor, metaclass=_Building):
    """Base class of user-defined composite values (follows `tf.experimental.ExtensionType`;
    see this module's docstring for what a subclass gets).

    >>> class MaskedTensor(ek.experimental.ExtensionType):
    ...     values: ek.Tensor
    ...     mask: ek.Tensor
    >>> mt = MaskedTensor([1, 2, 3], [True, False, True])
    >>> mt.values.dtype, mt.mask.dtype, bool(mt == mt)
    (ek.int32, ek.bool, True)
    >>> mt.mask = [True, True, True]
    Traceback (most recent call last):
    AttributeError: Cannot mutate attribute `mask` outside the custom constructor of ExtensionType.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._ek_hints = None
        frame = sys._getframe(1)  # the frame running the class statement
        cls._ek_globals = frame.f_globals
        cls._ek_locals = None
        if frame.f_code.co_name != "<module>":
            # A class made in a function: keep the locals its string annotations may name
            # (not all of them, which could hold large values alive with the class).
            words = set()
            for annotation in inspect.get_annotations(cls).values():
                if isinstance(annotation, str):
                    words.update(re.findall(r"[A-Za-z_]\w*", annotation))
            cls._ek_locals = {k: v for k, v in frame.f_locals.items() if k in words}
        del frame
        fields = _collect_fields(cls)
        cls._ek_fields = fields
        try:  # string annotations resolve now unless they name a class not yet defined
            hints = cls._ek_resolved()
        except TypeError:
            hints = {name: f.annotation for name, f in fields.items()}
            cls._ek_hints = None
        for name, tp in hints.items():
            _check_annotation(cls.__name__, name, tp)
        if "__init__" not in cls.__dict__:
            cls.__init__ = _make_init(fields)
        cls.__hash__ = None  # values compare by their tensors: not hashable
        user_spec = cls.__dict__.get("Spec")
        bases = (user_spec, _spec_base(cls)) if user_spec is not None else (_spec_base(cls),)
        namespace = {
            "__module__": cls.__module__,
            "__qualname__": f"{cls.__qualname__}.Spec",
            "_ek_value_cls": cls,
            "_ek_fields": fields,
            "_ek_hints": None,
        }
        # The user's Spec may declare its own __init__ (setting the fields) and methods.
        if user_spec is None or "__init__" not in user_spec.__dict__:
            namespace["__init__"] = _make_init(fields, apply_defaults=False)
        cls.Spec = type("Spec", bases, namespace)

    def _ek_seal(self) -> None:
        cls = type(self)
        hints = cls._ek_resolved()
        name = cls.__name__
        values = self.__dict__
        for field, f in cls._ek_fields.items():
            if field not in values:
                if f.default is _MISSING:
                    raise TypeError(f"{name}: missing required field {field!r}.")
                values[field] = f.default
            values[field] = _convert(values[field], hints[field], f"{name}.{field}")
        validate = getattr(self, "__validate__", None)
        if validate is not None:
            validate()

    # -- what TensorFlow's ExtensionType gives every subclass ------------------------------
    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._ek_field_items())
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other):
        """False for another type or another spec; else a boolean scalar Tensor: whether every
        tensor field has the same shape and values (follows ExtensionType.__eq__)."""
        if type(self) is not type(other):
            return False
        if self._type_spec != other._type_spec:
            return False
        from .ops import equal, reduce_all, stack

        mine, theirs = _tensors(self), _tensors(other)
        if len(mine) != len(theirs):
            return False
        if any(a.shape != b.shape for a, b in zip(mine, theirs)):
            return convert_to_tensor(False)
        if not mine:
            return convert_to_tensor(True)
        return reduce_all(stack([reduce_all(equal(a, b)) for a, b in zip(mine, theirs)]))

    def __ne__(self, other):
        eq = self.__eq__(other)
        if isinstance(eq, Tensor):
            from .ops import logical_not

            return logical_not(eq)
        return not eq

    @property
    def _type_spec(self) -> ExtensionTypeSpec:
        """The value's `Spec`: its fields with each Tensor replaced by its TensorSpec."""
        spec_cls = type(self).Spec
        spec = object.__new__(spec_cls)
        for name, value in self._ek_field_items():
            object.__setattr__(spec, name, _spec_of(value))
        object.__setattr__(spec, "_ek_open", False)
        return spec

    # -- CompositeTensor: elementwise dispatch, ek.function, Dataset -------------------------
    def _ek_unary(self, op):
        from .extension_dispatch import unary_handler

        handler = unary_handler(self)
        return handler(op, self) if handler is not None else super()._ek_unary(op)

    def _ek_binary(self, op, x, y):
        from .extension_dispatch import binary_handler

        handler = binary_handler(x, y)
        return handler(op, x, y) if handler is not None else super()._ek_binary(op, x, y)

    def _ek_trace_key(self) -> tuple:
        static, parts = _trace_key(self)
        return static, parts


class BatchableExtensionType(ExtensionType):
    """An ExtensionType whose values can be batched and unbatched: every Tensor field has the
    batch dimensions first, and a `TensorShape` field (conventionally ``shape``) holds the
    batch shape (follows `tf.experimental.BatchableExtensionType`). `Dataset` slices, batches
    and unbatches them; rows are made without calling ``__init__``."""

    def _ek_row(self, i: int):
        return _rebuild(self, lambda v: _row(v, i))

    def _ek_nrows(self) -> int:
        tensors = _tensors(self)
        if not tensors or tensors[0].shape.rank in (None, 0):
            raise ValueError(
                f"{type(self).__name__}: a batch needs a Tensor field with a first dimension."
            )
        return int(tensors[0].shape[0])

    @classmethod
    def _ek_stack(cls, items: list, op: str):
        if not items:
            raise ValueError(f"{op}: no {cls.__name__} values to batch.")
        first = items[0]
        fields = {}
        for name, _ in first._ek_field_items():
            fields[name] = _stack([item.__dict__[name] for item in items], op)
        out = object.__new__(cls)
        for name, value in fields.items():
            object.__setattr__(out, name, value)
        object.__setattr__(out, "_ek_open", False)
        return out


def _row(value, i: int):
    if isinstance(value, Tensor):
        return value[i]
    if isinstance(value, TensorShape):
        return value[1:]
    if isinstance(value, BatchableExtensionType):
        return value._ek_row(i)
    if isinstance(value, CompositeTensor):
        return value._ek_row(i)
    if isinstance(value, collections.abc.Mapping):
        return ImmutableDict((k, _row(v, i)) for k, v in value.items())
    if isinstance(value, tuple):
        return tuple(_row(v, i) for v in value)
    return value


def _stack(values: list, op: str):
    first = values[0]
    if isinstance(first, Tensor):
        from .ops import stack

        return stack(values)
    if isinstance(first, TensorShape):
        return TensorShape([len(values), *first]) if first.rank is not None else first
    if isinstance(first, CompositeTensor):
        return type(first)._ek_stack(values, op)
    if isinstance(first, collections.abc.Mapping):
        return ImmutableDict((k, _stack([v[k] for v in values], op)) for k in first)
    if isinstance(first, tuple):
        return tuple(_stack(list(vs), op) for vs in zip(*values))
    return first


def _rebuild(value: ExtensionType, fn):
    out = object.__new__(type(value))
    for name, field_value in value._ek_field_items():
        object.__setattr__(out, name, fn(field_value))
    object.__setattr__(out, "_ek_open", False)
    return out


def _tensors(value) -> list:
    """The Tensors inside ``value``, in field order (nested values flattened)."""
    out: list = []

    def walk(v):
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, ExtensionType):
            for _, x in v._ek_field_items():
                walk(x)
        elif isinstance(v, collections.abc.Mapping):
            for k in sorted(v, key=repr):
                walk(v[k])
        elif isinstance(v, tuple):
            for x in v:
                walk(x)
        elif isinstance(v, CompositeTensor):
            out.extend(v._ek_trace_key()[1])

    walk(value)
    return out


def _trace_key(value) -> tuple:
    """``(static, tensors)``: what `ek.function` keys a trace on (the type, the non-tensor
    fields by value, where the tensors sit) and the tensors that become program inputs."""
    parts: list = []

    def key(v):
        if isinstance(v, Tensor):
            parts.append(v)
            return "T"
        if isinstance(v, ExtensionType):
            return (type(v), tuple((k, key(x)) for k, x in v._ek_field_items()))
        if isinstance(v, CompositeTensor):
            static, tensors = v._ek_trace_key()
            parts.extend(tensors)
            return static
        if isinstance(v, collections.abc.Mapping):
            return ("M", tuple((k, key(v[k])) for k in sorted(v, key=repr)))
        if isinstance(v, tuple):
            return ("U", tuple(key(x) for x in v))
        return v

    static = key(value)
    return static, parts


# -- type specs of values ---------------------------------------------------------------------


def type_spec_from_value(value):
    """The `TypeSpec` of ``value`` (follows `tf.type_spec_from_value`): a `TensorSpec` for a
    Tensor (or anything `convert_to_tensor` takes), the `Spec` of an ExtensionType, the
    `RaggedTensorSpec` / `SparseTensorSpec` of a ragged or sparse tensor.

    Raises:
        TypeError: a value with no TypeSpec.

    >>> ek.type_spec_from_value(ek.constant([1.0, 2.0]))
    TensorSpec(shape=(2,), dtype=ek.float32, name=None)
    """
    from .data.structure import TensorSpec

    if isinstance(value, ExtensionType):
        return value._type_spec
    if isinstance(value, CompositeTensor):
        from .ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
        from .sparse.sparse_tensor import SparseTensor, SparseTensorSpec

        if isinstance(value, RaggedTensor):
            return RaggedTensorSpec.from_value(value)
        if isinstance(value, SparseTensor):
            return SparseTensorSpec.from_value(value)
    try:
        t = value if isinstance(value, Tensor) else convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(
            f"type_spec_from_value: could not build a TypeSpec for {_value_text(value)}."
        ) from None
    return TensorSpec(t.shape, t.dtype)


class OutputTemplate:
    """How an ExtensionType value is made of its Tensors, for `ek.function`'s outputs: the
    program returns the Tensors (`tensors`), and `build` makes a value of the same type and
    non-tensor fields around new ones (or its `Spec` around TensorSpecs). Values holding a
    ragged or sparse tensor have no template (`of` gives None)."""

    __slots__ = ("_shape", "n")

    def __init__(self, shape, n: int):
        self._shape, self.n = shape, n

    @classmethod
    def of(cls, value) -> OutputTemplate | None:
        count = [0]

        def walk(v):
            if isinstance(v, Tensor):
                count[0] += 1
                return ("T",)
            if isinstance(v, ExtensionType):
                fields = [(k, walk(x)) for k, x in v._ek_field_items()]
                return None if any(f is None for _, f in fields) else ("E", type(v), fields)
            if isinstance(v, CompositeTensor):
                return None
            if isinstance(v, collections.abc.Mapping):  # keys in `_tensors`' order
                items = [(k, walk(v[k])) for k in sorted(v, key=repr)]
                return None if any(f is None for _, f in items) else ("M", items)
            if isinstance(v, tuple):
                items = [walk(x) for x in v]
                return None if any(f is None for f in items) else ("U", items)
            return ("P", v)

        shape = walk(value)
        return None if shape is None else cls(shape, count[0])

    def tensors(self, value) -> list:
        """The Tensors of ``value`` in the order `build` takes them."""
        return _tensors(value)

    def build(self, leaves: list, spec: bool = False):
        """A value (``spec``: its Spec) of this shape with ``leaves`` as its Tensors."""
        it = iter(leaves)

        def make(shape):
            kind = shape[0]
            if kind == "T":
                return next(it)
            if kind == "P":
                return shape[1]
            if kind == "M":
                return ImmutableDict((k, make(s)) for k, s in shape[1])
            if kind == "U":
                return tuple(make(s) for s in shape[1])
            out = object.__new__(shape[1].Spec if spec else shape[1])
            for name, s in shape[2]:
                object.__setattr__(out, name, make(s))
            object.__setattr__(out, "_ek_open", False)
            return out

        return make(self._shape)
