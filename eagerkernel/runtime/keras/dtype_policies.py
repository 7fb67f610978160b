"""Dtype policies: the dtypes a layer computes in and keeps its variables in (follows
`tf.keras.mixed_precision.Policy`, Keras 3's `keras.DTypePolicy`).

A policy has a *compute dtype* (the dtype of a layer's inputs, outputs and arithmetic) and a
*variable dtype* (the dtype of the weights it creates). ``"float32"``, ``"float64"`` and
``"float16"`` use one dtype for both; ``"mixed_float16"`` computes in float16 and keeps float32
variables, which a layer reads as float16 inside its call (Keras's autocasting), so that the
optimizer updates float32 weights. ``"bfloat16"`` and ``"mixed_bfloat16"`` are TensorFlow's
names too, but NumPy has no bfloat16: they raise NotImplementedError.

The global policy is what layers created without ``dtype=`` take (`set_global_policy`); it is
process-wide, as TensorFlow's is, and ``"float32"`` until set.
"""

from __future__ import annotations

from ..core import dtypes

__all__ = ["Policy", "get", "global_policy", "serialize", "set_global_policy"]

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}


class Policy:
    """A layer's dtype policy (follows `tf.keras.mixed_precision.Policy`; also exported as
    Keras 3's ``DTypePolicy``).

    Args:
        name: ``"mixed_float16"`` (float16 compute, float32 variables) or the name of a dtype
            such as ``"float32"``, ``"float64"`` or ``"float16"`` (both dtypes that one);
            None (the default) takes the global policy's name, as Keras 3's does.

    Attributes:
        name: the name given.
        compute_dtype: the dtype layers compute and output in, a string (``"float16"``).
        variable_dtype: the dtype of the variables layers create, a string (``"float32"``).

    Raises:
        TypeError: ``name`` is not a string (a DType: pass ``dtype.name``).
        ValueError: ``name`` is neither a mixed policy nor a dtype name.
        NotImplementedError: ``"bfloat16"`` / ``"mixed_bfloat16"`` (NumPy has no bfloat16).

    >>> policy = ek.keras.mixed_precision.Policy("mixed_float16")
    >>> policy
    <DTypePolicy "mixed_float16">
    >>> policy.compute_dtype, policy.variable_dtype
    ('float16', 'float32')
    """

    def __init__(self, name: str | None = None):
        if name is None:  # Keras 3: the global policy's name
            name = global_policy().name
        if isinstance(name, dtypes.DType):
            raise TypeError(
                f"'name' must be a string, not a DType. Instead, pass DType.name. Got: {name.name}"
            )
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, but got: {name!r}")
        self._name = name
        self._compute_dtype, self._variable_dtype = _parse_name(name)

    @property
    def name(self) -> str:
        """The policy's name (``"mixed_float16"``, ``"float32"``, ...)."""
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype of the layer's computations and outputs, e.g. ``"float16"``."""
        return self._compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype of the variables the layer creates, e.g. ``"float32"``."""
        return self._variable_dtype

    def get_config(self) -> dict:
        """``{"name": name}`` (Keras's serialization)."""
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None) -> Policy:
        """The policy `get_config` describes."""
        return cls(**config)

    def __eq__(self, other) -> bool:
        return isinstance(other, Policy) and other._name == self._name

    def __hash__(self) -> int:
        return hash(("Policy", self._name))

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'  # Keras 3 (tf.keras 2 said Policy)


DTypePolicy = Policy  # Keras 3's name


def _parse_name(name: str) -> tuple[str, str]:
    if name in _MIXED or name == "bfloat16":
        if "bfloat16" in name:
            raise NotImplementedError(
                f"Policy {name!r} is not supported: NumPy (and so eagerkernel) has no bfloat16 "
                "dtype. Use 'mixed_float16' for mixed precision."
            )
        return _MIXED[name]
    try:
        dtype = dtypes.as_dtype(name)
    except (TypeError, ValueError):
        dtype = None
    if dtype is None or dtype.name != name:
        raise ValueError(
            f"Cannot convert value {name!r} to a mixed precision Policy. Valid policies "
            "include 'mixed_float16', 'mixed_bfloat16', and the name of any dtype such as "
            f"'float32'. Received: name={name!r}"
        )
    return dtype.name, dtype.name


_global: Policy | None = None


def global_policy() -> Policy:
    """The policy layers take when created without ``dtype=`` (follows
    `tf.keras.mixed_precision.global_policy`): the one `set_global_policy` set, else
    ``Policy(keras.backend.floatx())``, i.e. ``"float32"``.

    >>> ek.keras.mixed_precision.global_policy()
    <DTypePolicy "float32">
    """
    if _global is not None:
        return _global
    from .backend import floatx

    return Policy(floatx())


def set_global_policy(policy) -> None:
    """Sets the policy of layers created from now on without ``dtype=`` (follows
    `tf.keras.mixed_precision.set_global_policy`); layers already made keep theirs.

    Args:
        policy: a `Policy`, a policy name (``"mixed_float16"``) or None (back to the default,
            ``"float32"``).

    Raises:
        ValueError: an unknown name, or a policy whose compute dtype is not floating.
        TypeError: anything else.

    >>> ek.keras.mixed_precision.set_global_policy("mixed_float16")
    >>> ek.keras.layers.Dense(2).dtype_policy
    <DTypePolicy "mixed_float16">
    >>> ek.keras.mixed_precision.set_global_policy(None)
    """
    global _global
    if policy is not None and not isinstance(policy, Policy):
        if not isinstance(policy, str):
            raise TypeError(
                "set_global_policy: expected a Policy, a policy name (such as "
                f"'mixed_float16') or None. Received: policy={policy!r}"
            )
        policy = Policy(policy)
    if policy is not None and not dtypes.as_dtype(policy.compute_dtype).is_floating:
        raise ValueError(
            "set_global_policy can only be used to set the global policy to floating-point "
            'policies, such as "float32" and "mixed_float16", but got policy: '
            f"{policy.name}"
        )
    _global = policy


def get(identifier) -> Policy:
    """The policy a layer's ``dtype=`` argument names: None (the global policy), a `Policy`,
    a policy or dtype name (or any spelling `ek.as_dtype` reads), a DType or NumPy dtype, or
    a config dict written by `serialize` (``{"class_name": "Policy", "config": {"name":
    ...}}``; Keras 3's ``DTypePolicy`` too).

    Raises:
        ValueError: an unknown name, or a dict that is not a policy's config.
        TypeError: a value of another type.
    """
    if identifier is None:
        return global_policy()
    if isinstance(identifier, Policy):
        return identifier
    if isinstance(identifier, str):
        try:
            return Policy(identifier)
        except ValueError as exc:
            error = exc
        try:  # another spelling of a dtype ("double", "f4"), as tf.keras's Layer accepts
            return Policy(dtypes.as_dtype(identifier).name)
        except TypeError:
            raise error from None
    if isinstance(identifier, dict):
        kind = identifier.get("class_name")
        config = identifier.get("config")
        if kind not in ("Policy", "DTypePolicy", "FloatDTypePolicy") or not isinstance(
            config, dict
        ):
            raise ValueError(
                f"Expected a dtype policy config ({{'class_name': 'Policy', 'config': "
                f"{{'name': ...}}}}). Received: dtype={identifier!r}"
            )
        return Policy.from_config(config)
    try:
        return Policy(dtypes.as_dtype(identifier).name)
    except TypeError:
        raise TypeError(
            "dtype must be a dtype policy (ek.keras.mixed_precision.Policy), a policy name "
            f"such as 'mixed_float16', or a dtype. Received: dtype={identifier!r}"
        ) from None


def serialize(policy: Policy):
    """A policy for a layer config: its name when it names a dtype (``"float32"``, so
    float32 configs look as they always did), else ``{"class_name": "Policy", "config":
    {"name": ...}}``, as tf.keras writes them."""
    if policy.name not in _MIXED:
        return policy.name
    return {"class_name": "Policy", "config": policy.get_config()}
