"""TensorFlow's error classes (follows `tf.errors`), public as ``ek.errors``.

A leaf module: it imports nothing of the runtime, so every module may raise these.

Each class keeps TensorFlow's name, error code and constructor, and also subclasses the Python
built-in that callers caught before these classes existed, so ``except ValueError`` still
catches a bad op argument (`InvalidArgumentError`) and ``except MemoryError`` a failed
allocation (`ResourceExhaustedError`).

>>> try:
...     raise InvalidArgumentError(None, None, "MatMul: shapes (2, 3) and (2, 3) do not match")
... except ValueError as exc:
...     print(type(exc).__name__, exc.error_code, exc.message)
InvalidArgumentError 3 MatMul: shapes (2, 3) and (2, 3) do not match
"""

from __future__ import annotations

__all__ = [
    "ABORTED",
    "ALREADY_EXISTS",
    "CANCELLED",
    "DATA_LOSS",
    "DEADLINE_EXCEEDED",
    "FAILED_PRECONDITION",
    "INTERNAL",
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "OK",
    "OUT_OF_RANGE",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "UNAUTHENTICATED",
    "UNAVAILABLE",
    "UNIMPLEMENTED",
    "UNKNOWN",
    "AbortedError",
    "AlreadyExistsError",
    "CancelledError",
    "DTypeMismatchError",
    "DataLossError",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "OpError",
    "OperatorNotAllowedInGraphError",
    "OutOfRangeError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "UnknownError",
    "UnsupportedDTypeError",
]

# TensorFlow's canonical error codes (`tf.errors.OK`, ...).
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """The base class of the errors an op raises when it runs (follows `tf.errors.OpError`).

    Constructed as TensorFlow's, ``OpError(node_def, op, message, error_code)``, or, as the
    runtime does, with the message alone: ``InvalidArgumentError("MatMul: ...")``.

    Attributes:
        message: the error message (str).
        op: the op that failed (its name here, or None); ``node_def``: always None (there is no
            graph).
        error_code: TensorFlow's integer code (e.g. ``ek.errors.INVALID_ARGUMENT`` = 3).
        experimental_payloads: always an empty dict (TensorFlow's status payloads).

    Errors pickle (so they cross process boundaries, e.g. from a Dataset worker), keeping their
    class, message and code:

    >>> import pickle
    >>> e = pickle.loads(pickle.dumps(OpError(None, None, "lost", ABORTED)))
    >>> type(e).__name__, e.message, e.error_code
    ('OpError', 'lost', 10)
    """

    error_code = UNKNOWN

    def __init__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs:
            node_def, op, message = None, None, args[0]
        else:
            names = ("node_def", "op", "message", "error_code")
            given = dict(zip(names, args))
            given.update(kwargs)
            node_def, op, message = given.get("node_def"), given.get("op"), given.get("message")
            if "error_code" in given and type(self) is OpError:
                self.error_code = given["error_code"]
        super().__init__(message)
        self.message = "" if message is None else str(message)
        self.op = op
        self.node_def = node_def

    def __str__(self) -> str:
        return self.message

    @property
    def experimental_payloads(self) -> dict:
        return {}

    def __reduce__(self):
        if type(self) is OpError:  # the only class whose code is an argument
            return OpError, (self.node_def, self.op, self.message, self.error_code)
        return type(self), (self.node_def, self.op, self.message)


def _error(name: str, code: int, builtin: type | None, doc: str) -> type:
    bases = (OpError,) if builtin is None else (OpError, builtin)
    return type(name, bases, {"error_code": code, "__doc__": doc, "__module__": __name__})


CancelledError = _error("CancelledError", CANCELLED, None, "An op or step was cancelled.")
UnknownError = _error("UnknownError", UNKNOWN, None, "An error of no other class.")
InvalidArgumentError = _error(
    "InvalidArgumentError",
    INVALID_ARGUMENT,
    ValueError,
    "An op received an invalid argument: a shape mismatch, an out-of-range index, a value "
    "outside its domain (follows `tf.errors.InvalidArgumentError`; also a ValueError).",
)
DeadlineExceededError = _error(
    "DeadlineExceededError", DEADLINE_EXCEEDED, TimeoutError, "A deadline expired."
)
NotFoundError = _error(
    "NotFoundError",
    NOT_FOUND,
    FileNotFoundError,
    "A requested entity (a file, a checkpoint) was not found (also a FileNotFoundError).",
)
AlreadyExistsError = _error(
    "AlreadyExistsError", ALREADY_EXISTS, FileExistsError, "An entity to create already exists."
)
PermissionDeniedError = _error(
    "PermissionDeniedError", PERMISSION_DENIED, PermissionError, "The caller may not do this."
)
ResourceExhaustedError = _error(
    "ResourceExhaustedError",
    RESOURCE_EXHAUSTED,
    MemoryError,
    "A resource ran out, e.g. memory for an allocation (also a MemoryError).",
)
FailedPreconditionError = _error(
    "FailedPreconditionError",
    FAILED_PRECONDITION,
    RuntimeError,
    "The system is not in a state for this op, e.g. a variable read before it was "
    "initialized (also a RuntimeError).",
)
AbortedError = _error("AbortedError", ABORTED, None, "An op was aborted (e.g. a conflict).")
OutOfRangeError = _error(
    "OutOfRangeError",
    OUT_OF_RANGE,
    StopIteration,
    "An iteration went past the end of its input, e.g. ``get_next()`` on an exhausted Dataset "
    "iterator (also a StopIteration).",
)
UnimplementedError = _error(
    "UnimplementedError",
    UNIMPLEMENTED,
    NotImplementedError,
    "The op or this use of it is not implemented (also a NotImplementedError).",
)
InternalError = _error("InternalError", INTERNAL, None, "An invariant of the runtime broke.")
UnavailableError = _error("UnavailableError", UNAVAILABLE, None, "A service is unavailable.")
DataLossError = _error("DataLossError", DATA_LOSS, None, "Data was lost or corrupted.")
UnauthenticatedError = _error(
    "UnauthenticatedError", UNAUTHENTICATED, None, "The request has no valid credentials."
)


class UnsupportedDTypeError(InvalidArgumentError, TypeError):
    """An op called on a dtype it has no kernel for, such as ``exp`` of an int32 tensor or
    ``erf`` of a complex one. TensorFlow raises `InvalidArgumentError` ("Value for attr 'T' of
    int32 is not in the list of allowed values"); this subclass of it (eagerkernel's, not a
    TensorFlow name) is also a TypeError, which eagerkernel raised for these before, so that
    both ``except ek.errors.InvalidArgumentError`` and ``except TypeError`` catch it.

    >>> try:
    ...     ek.exp(ek.constant([1, 2]))
    ... except ek.errors.InvalidArgumentError as exc:
    ...     print(isinstance(exc, TypeError), exc.message[:44])
    True Exp: x must be a floating-point tensor, got
    """


class DTypeMismatchError(InvalidArgumentError, TypeError):
    """The inputs of one op have different dtypes (``float32 + int32``): TensorFlow does not
    promote, and its kernels raise `InvalidArgumentError` ("cannot compute AddV2 as input #1
    was expected to be a float tensor but is a int32 tensor"). This subclass of it
    (eagerkernel's, not a TensorFlow name) is also a TypeError, which eagerkernel raised for
    these before, so that both ``except ek.errors.InvalidArgumentError`` (TensorFlow's guides)
    and ``except TypeError`` catch it.

    >>> try:
    ...     ek.constant(1.0) + ek.constant(1)
    ... except ek.errors.InvalidArgumentError as exc:
    ...     print(isinstance(exc, TypeError), exc.message[:44])
    True AddV2: inputs must have the same dtype, got
    """


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a symbolic tensor that graph tracing cannot allow, such as
    iterating over it (follows `tf.errors.OperatorNotAllowedInGraphError`; a TypeError, not an
    `OpError`, as in TensorFlow)."""
